"""Schedule templates per (operator, target kind)."""

from tensortune.templates.base import InstantiationError, Template
from tensortune.templates.registry import (
    default_template,
    get_template,
    make_task,
    template_names,
    with_space,
)

__all__ = ["InstantiationError", "Template", "default_template", "get_template", "make_task", "template_names", "with_space"]
