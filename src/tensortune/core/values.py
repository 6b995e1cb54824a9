"""The core values every layer shares: tasks, measurement inputs and results, error kinds, the
Measurer protocol. Floor 1: this module imports nothing of tensortune but the search space."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol, runtime_checkable

from tensortune.space import Config, SearchSpace


class ErrorKind(IntEnum):
    """Why a measurement failed; numbered as AutoTVM's ``MeasureErrorNo``."""

    NONE = 0
    INSTANTIATION = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN = 8
    OUT_OF_MEMORY = 9  # the build or the kernel ran past the worker's memory limit


class DeviceError(Exception):
    """The measuring infrastructure failed (tracker or device unreachable, a server died and no other
    took the config): not the config's fault, so nothing is stored for it and the run stops cleanly;
    rerunning resumes."""


@dataclass(frozen=True)
class Task:
    """What is tuned: a workload, the template that schedules it, the target (a TVM target dict), and
    the template's search space for them. Made by ``templates.make_task``, which knows the templates;
    the space is not part of the task's identity."""

    workload: Any
    template: str
    target_json: str
    name: str = ""
    search_space: SearchSpace | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def space(self) -> SearchSpace:
        if self.search_space is None:
            raise ValueError(f"task {self.name or self.key} carries no search space: make it with templates.make_task")
        return self.search_space

    @property
    def target(self) -> dict[str, Any]:
        return json.loads(self.target_json)

    @property
    def key(self) -> str:
        return f"{self.template}|{self.workload.key}"

    @property
    def flops(self) -> int:
        return int(self.workload.flops)

    def spec(self) -> dict[str, Any]:
        """Primitive description passed to worker processes."""
        return {"workload": self.workload.key, "template": self.template, "target": self.target_json}


@dataclass(frozen=True)
class MeasureInput:
    task: Task
    config: Config


@dataclass(frozen=True)
class MeasureResult:
    """All timed repeats (seconds) of one measurement, or an error kind with its message."""

    costs: tuple[float, ...]
    error: ErrorKind = ErrorKind.NONE
    message: str = ""
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    timestamp: float = field(default_factory=time.time)
    # backend-specific details stored with the record (JSON-able), e.g. per-layer times of a whole-model
    # measurement; strategies that can use them receive them through ``SearchStrategy.tell_extra``
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def ok(self) -> bool:
        return self.error == ErrorKind.NONE and len(self.costs) > 0

    @property
    def cost(self) -> float:
        """Median of the repeats; +inf for a failed measurement."""
        return statistics.median(self.costs) if self.ok else float("inf")

    @classmethod
    def failure(cls, error: ErrorKind, message: str, **kw: Any) -> MeasureResult:
        return cls(costs=(), error=error, message=message[:2000], **kw)


@runtime_checkable
class Measurer(Protocol):
    """Measures a batch of inputs, one result each, in order. Backends need not be TVM."""

    def measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]: ...

    def close(self) -> None: ...


def measurer_protocol(measurer: Any) -> dict[str, Any]:
    """What decides a measurer's figures (its kind, repeats, timeouts, device), as JSON-able values: a
    run resumed with another protocol is refused, since its records would not compare. A measurer
    says it with a ``protocol()`` method; one without (a replay of stored figures, a test double)
    returns {}, which matches any protocol."""
    fn = getattr(measurer, "protocol", None)
    return dict(fn()) if callable(fn) else {}

