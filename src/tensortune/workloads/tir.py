"""A fused TIR function of a model (conv2d + bias + relu, pooling, ...) as a tuning workload.

The function lives in a task file (``<task dir>/<key>.json``, written by
:func:`tensortune.models.tasks.save_task`) so that worker processes can rebuild the workload from its
key ``tir:<key>``. The task directory is ``$TENSORTUNE_TASK_DIR`` or ``~/.cache/tensortune/tasks``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np


def task_dir() -> str:
    return os.environ.get("TENSORTUNE_TASK_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tensortune", "tasks")


@dataclass(frozen=True)
class TirWorkload:
    task_key: str
    op: str = "tir"

    @property
    def key(self) -> str:
        return f"tir:{self.task_key}"

    @property
    def path(self) -> str:
        return os.path.join(task_dir(), f"{self.task_key}.json")

    @cached_property
    def _data(self) -> dict[str, Any]:
        try:
            with open(self.path) as f:
                return json.load(f)
        except FileNotFoundError:
            raise ValueError(f"task file {self.path} is missing (extract the model's tasks first, "
                             "or set TENSORTUNE_TASK_DIR)") from None

    @cached_property
    def mod(self) -> Any:
        import tvm

        return tvm.ir.load_json(self._data["mod"])

    @property
    def name(self) -> str:
        return str(self._data["name"])

    @property
    def kind(self) -> str:
        return str(self._data["kind"])

    @property
    def flops(self) -> float:
        return float(self._data["flops"])

    @cached_property
    def arg_specs(self) -> list[tuple[tuple[int, ...], str]]:
        from tvm.s_tir.meta_schedule.arg_info import ArgInfo

        return [(tuple(int(d) for d in a.shape), str(a.dtype)) for a in ArgInfo.from_prim_func(self.mod["main"])]

    @property
    def input_shapes(self) -> list[tuple[int, ...]]:
        return [s for s, _ in self.arg_specs[:-1]]

    @property
    def output_shape(self) -> tuple[int, ...]:
        return self.arg_specs[-1][0]

    def make_inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.standard_normal(s).astype(d) if d.startswith("float") else rng.integers(0, 4, s).astype(d)
                for s, d in self.arg_specs[:-1]]

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        """The unscheduled function's output (TVM's plain lowering), cached next to the task file."""
        cache = os.path.join(task_dir(), f"{self.task_key}.ref.npy")
        if os.path.exists(cache) and inputs_are_default(self, inputs):
            return np.load(cache)
        import tvm

        lib = tvm.compile(self.mod, target=tvm.target.Target({"kind": "llvm"}))
        dev = tvm.cpu(0)
        shape, dtype = self.arg_specs[-1]
        args = [tvm.runtime.tensor(a, dev) for a in inputs] + [tvm.runtime.tensor(np.zeros(shape, dtype), dev)]
        lib["main"](*args)
        out = args[-1].numpy()
        if inputs_are_default(self, inputs):
            tmp = cache + f".{os.getpid()}.npy"
            np.save(tmp, out)
            os.replace(tmp, cache)
        return out

    def describe(self) -> str:
        return f"{self.name} ({self.kind}, {self.flops / 1e6:.1f} MFLOP)"


def inputs_are_default(wl: TirWorkload, inputs: list[np.ndarray]) -> bool:
    ref = wl.make_inputs(seed=0)
    return len(ref) == len(inputs) and all(a.shape == b.shape and np.array_equal(a, b) for a, b in zip(ref, inputs, strict=True))


def block_kinds(func: Any) -> dict[str, bool]:
    """Block name -> whether it reduces, for every block of a PrimFunc."""
    from tvm import s_tir

    sch = s_tir.Schedule(func)
    out: dict[str, bool] = {}
    stack = list(sch.get_child_blocks(sch.get_sblock("root")))
    while stack:
        rv = stack.pop()
        blk = sch.get(rv)
        out[blk.name_hint] = any(int(iv.iter_type) == 2 for iv in blk.iter_vars)
        stack.extend(sch.get_child_blocks(rv))
    return out
