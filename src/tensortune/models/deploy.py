"""A deployable model: the compiled library (weights embedded as constants, already in the layouts
the tuned kernels read) and a small JSON beside it, checked by loading it in a fresh process with
nothing but the TVM runtime.

Loading it (what the README shows)::

    import os; os.environ.setdefault("TVM_NUM_THREADS", "2")   # before the first run: see core/threads.py
    import numpy as np, tvm
    from tvm.runtime.vm import VirtualMachine
    vm = VirtualMachine(tvm.runtime.load_module("model.so"), tvm.cpu())
    y = vm["main"](tvm.runtime.tensor(x))
    y = (y if isinstance(y, tvm.runtime.Tensor) else y[0]).numpy()  # models from PyTorch return a tuple
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

import numpy as np

from tensortune.core.logs import native_log
from tensortune.models.build import BuiltModel

# the check runs this in a fresh interpreter: only the TVM runtime, no tensortune, no compiler
_LOADER = """
import json, os, sys
meta = json.load(open(sys.argv[2]))
os.environ.setdefault("TVM_NUM_THREADS", str(meta["threads"]))
import numpy as np, tvm
from tvm.runtime.vm import VirtualMachine
vm = VirtualMachine(tvm.runtime.load_module(sys.argv[1]), tvm.cpu())
out = vm["main"](tvm.runtime.tensor(np.load(sys.argv[3])))
out = out if isinstance(out, tvm.runtime.Tensor) else out[0]
np.save(sys.argv[4], out.numpy())
"""


class DeployError(RuntimeError):
    """The written library does not load or does not reproduce the reference output."""


def metadata_path(lib_path: str) -> str:
    return os.path.splitext(lib_path)[0] + ".json"


def write_library(built: BuiltModel, out: str, *, model: str, input_shape: tuple[int, ...], input_dtype: str,
                  x: np.ndarray, ref: np.ndarray | None, extra: dict[str, Any] | None = None,
                  log_path: str | None = None) -> dict[str, Any]:
    """Export the library to ``out`` (atomically), its metadata beside it, and check it in a fresh
    process against ``ref`` (PyTorch's output), or against the in-process build where there is none."""
    os.makedirs(os.path.dirname(os.path.abspath(out)) or ".", exist_ok=True)
    tmp = f"{out}.{os.getpid()}.tmp.so"
    with native_log(log_path):  # TVM prints a line per saved constant scope
        built.executable.export_library(tmp)
    meta = {"model": model, "input_shape": list(input_shape), "input_dtype": input_dtype, "target": built.target,
            "threads": built.threads, **(extra or {})}
    expect = ref if ref is not None else built.run(x)
    with tempfile.TemporaryDirectory(prefix="tensortune-deploy-") as d:
        mpath, xin, yout = os.path.join(d, "meta.json"), os.path.join(d, "x.npy"), os.path.join(d, "y.npy")
        with open(mpath, "w") as f:
            json.dump(meta, f)
        np.save(xin, x)
        p = subprocess.run([sys.executable, "-c", _LOADER, tmp, mpath, xin, yout], capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0:
            os.unlink(tmp)
            raise DeployError(f"the written library does not load in a fresh process: {p.stderr.strip()[-400:]}")
        y = np.load(yout)
    err = float(np.max(np.abs(y.astype(np.float64) - expect)))
    scale = float(np.max(np.abs(expect)))
    if err > 1e-3 * max(scale, 1e-6) + 1e-5:
        os.unlink(tmp)
        raise DeployError(f"the written library's output differs from the reference: max abs error {err:.2e}")
    meta["check"] = {"against": "PyTorch" if ref is not None else "in-process build", "max_abs_error": err,
                     "output_max": scale}
    os.replace(tmp, out)
    with open(metadata_path(out) + ".tmp", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(metadata_path(out) + ".tmp", metadata_path(out))
    return meta
