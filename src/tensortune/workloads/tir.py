"""A fused TIR function of a model (conv2d + bias + relu, pooling, ...) as a tuning workload.

The function lives in a task file (``<task dir>/<key>.json``, written by
:func:`tensortune.models.tasks.save_task`) so that worker processes can rebuild the workload from its
key ``tir:<key>``. The task directory is ``$TENSORTUNE_TASK_DIR`` or ``~/.cache/tensortune/tasks``.

A key is the content hash of its function (16 hex digits, see ``models.tasks.task_key``): a key that
is anything else (``../x``) is refused before any path is made of it, and a task file is loaded
only if its function hashes to its key, so an edited or swapped file is never compiled and run.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

_KEY = re.compile(r"[0-9a-f]{16}")


class TaskFileError(ValueError):
    """A task file is missing, or does not hold the function its key names."""


def check_task_key(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise ValueError(f"invalid TIR task key {key[:40]!r} (16 hex digits expected)")
    return key


def function_key(mod: Any) -> str:
    """The content key of a task's module: its structural hash, hashed to 16 hex digits."""
    import hashlib

    import tvm_ffi

    return hashlib.sha256(str(tvm_ffi.structural_hash(mod)).encode()).hexdigest()[:16]


def task_dir() -> str:
    return os.environ.get("TENSORTUNE_TASK_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tensortune", "tasks")


@dataclass(frozen=True)
class TirWorkload:
    task_key: str
    op: str = "tir"

    def __post_init__(self) -> None:
        check_task_key(self.task_key)

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
            raise TaskFileError(f"task file {self.path} is missing (extract the model's tasks first, "
                                "or set TENSORTUNE_TASK_DIR)") from None
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise TaskFileError(f"task file {self.path} is unreadable ({e})") from None

    @cached_property
    def mod(self) -> Any:
        import tvm

        try:
            mod = tvm.ir.load_json(self._data["mod"])
        except Exception as e:
            raise TaskFileError(f"task file {self.path} does not hold a TVM module ({type(e).__name__})") from None
        if function_key(mod) != self.task_key:
            raise TaskFileError(f"task file {self.path} was changed: its function does not hash to its key "
                                f"{self.task_key}; delete it and rerun to extract the task again")
        return mod

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
