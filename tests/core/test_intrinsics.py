"""Tensor intrinsics registered for the target alone (``core/intrinsics.py``): a MetaSchedule design space made
after registering only the CPU's intrinsics is the one made after TVM's full registry, and nothing else loads."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tensortune.core.intrinsics import intrinsic_modules

# a fp32 matmul's MetaSchedule design space for a CPU whose rules ask for VNNI / AVX-512 intrinsics (znver5 has both)
SCRIPT = r"""
import json, sys, tvm
from tvm import te
from tvm.s_tir import meta_schedule as ms
if sys.argv[1] == "partial":
    from tensortune.core.intrinsics import register_tensor_intrinsics
    done = register_tensor_intrinsics({"kind": "llvm", "mcpu": "znver5"})
else:
    import tvm.s_tir.tensor_intrin
    done = ()
a, b = te.placeholder((64, 64), name="a"), te.placeholder((64, 64), name="b")
k = te.reduce_axis((0, 64), name="k")
c = te.compute((64, 64), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
mm = te.create_prim_func([a, b, c])
ctx = ms.TuneContext(mod=tvm.IRModule({"main": mm}), target=tvm.target.Target({"kind": "llvm", "mcpu": "znver5", "num-cores": 2}),
                     space_generator="post-order-apply", task_name="t", num_threads=1, rand_state=1)
spaces = [str(s.trace.as_json(remove_postproc=True)) for s in ctx.generate_design_space()]
loaded = sorted(m for m in sys.modules if m.startswith("tvm.s_tir.tensor_intrin."))
print(json.dumps({"done": list(done), "spaces": spaces, "loaded": loaded}))
"""


def _run(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_intrinsic_modules_per_target_kind():
    assert intrinsic_modules("llvm", "x86_64") == ("x86",)
    assert intrinsic_modules("llvm", "aarch64") == ("arm_cpu",)
    assert intrinsic_modules("cuda") == ("cuda",)
    assert intrinsic_modules("llvm", "sparc") is None and intrinsic_modules("opencl") is None  # then all of them


@pytest.mark.skipif(intrinsic_modules("llvm") != ("x86",), reason="the check compares x86 rules")
def test_a_design_space_with_the_cpus_intrinsics_alone_is_the_one_with_all_of_them():
    partial, full = _run("partial"), _run("full")
    assert partial["done"] == ["tvm.s_tir.tensor_intrin.x86"]
    assert partial["loaded"] == ["tvm.s_tir.tensor_intrin.x86"]  # no CUDA, ROCm, Metal, Hexagon, Arm, RISC-V
    assert "tvm.s_tir.tensor_intrin.cuda" in full["loaded"]
    assert partial["spaces"] and partial["spaces"] == full["spaces"]
