"""Per-kernel correctness inside the built model.

Each tuned function is checked against TVM's default lowering of the same function, on the real
tensors of a model run: both builds run the same input with a VM instrument that copies the output
of every call (TIR functions take their outputs as trailing arguments), and the k-th call of each
function is compared across the builds, in call order. The first call that differs is the faulty
kernel (every later call sees its wrong output); the others are not blamed. A tuned function whose
weights a schedule pre-packed (``*_prepacked``) is matched to its original by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.core.threads import call_with_threads
from tensortune.models.build import BuiltModel

SUFFIX = "_prepacked"  # SplitLayoutRewritePreproc's name for a function whose weights it pre-packs


@dataclass(frozen=True)
class KernelMismatch:
    symbol: str  # the function as named in the model (suffix removed)
    call: int  # which call of it (0-based) differed first
    max_abs_error: float
    scale: float  # max abs of the reference output


def call_outputs(built: BuiltModel, x: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(function, output) of every TIR call of one run, in call order."""

    def run() -> list[tuple[str, np.ndarray]]:
        import tvm

        vm = built._vm()
        seen: list[tuple[str, np.ndarray]] = []

        def instrument(_func: Any, symbol: str, before: bool, _ret: Any, *args: Any) -> int:
            name = str(symbol)
            if not before and not name.startswith("vm.builtin") and args and isinstance(args[-1], tvm.runtime.Tensor):
                seen.append((name.removesuffix(SUFFIX), args[-1].numpy().copy()))
            return 0

        vm.set_instrument(instrument)
        vm["main"](tvm.runtime.tensor(x, tvm.cpu()))
        vm.set_instrument(None)
        return seen

    return call_with_threads(built.threads, run)


def check_kernels(tuned: BuiltModel, reference: BuiltModel, x: np.ndarray, symbols: set[str],
                  rtol: float = 1e-3, atol: float = 1e-5) -> KernelMismatch | None:
    """The first call of a function in ``symbols`` whose output differs from the reference build's
    (None if all agree). ``symbols``: the tuned functions, by their names in the fused model."""
    got, ref = call_outputs(tuned, x), call_outputs(reference, x)
    by_name: dict[str, list[np.ndarray]] = {}
    for name, out in ref:
        by_name.setdefault(name, []).append(out)
    count: dict[str, int] = {}
    for name, out in got:
        k = count.get(name, 0)
        count[name] = k + 1
        refs = by_name.get(name)
        if name not in symbols or refs is None or k >= len(refs):
            continue
        r = refs[k]
        if r.shape != out.shape:
            return KernelMismatch(name, k, float("inf"), float(np.max(np.abs(r))))
        err = float(np.max(np.abs(out.astype(np.float64) - r)))
        scale = float(np.max(np.abs(r)))
        if not err <= rtol * max(scale, 1e-6) + atol:
            return KernelMismatch(name, k, err, scale)
    return None
