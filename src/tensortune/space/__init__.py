"""Search spaces: knobs, configurations and the space that ties them together."""

from tensortune.space.knobs import IntKnob, Knob, OptionKnob, SplitKnob
from tensortune.space.space import Config, Constraint, SearchSpace

__all__ = ["Config", "Constraint", "IntKnob", "Knob", "OptionKnob", "SearchSpace", "SplitKnob"]
