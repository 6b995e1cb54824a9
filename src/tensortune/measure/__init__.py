"""Measurement: typed inputs/results, isolated workers, TVM local and RPC measurers."""

from tensortune.measure.base import ErrorKind, MeasureInput, Measurer, MeasureResult, Task, target_key

__all__ = ["ErrorKind", "MeasureInput", "MeasureResult", "Measurer", "Task", "target_key"]
