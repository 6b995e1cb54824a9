"""A CUDA bundle of hand-written kernels that fail in each way the GPU runner must record.

``python tests/gpu/fault_bundle.py DIR`` writes it (needs nvcc); on a GPU machine
``python -m tensortune.measure.cuda_runner DIR --out OUT --kernel-timeout-s 8`` must then record:

=====  =================================================  ============================
index  kernel                                             expected record
=====  =================================================  ============================
0      a direct convolution, one output per thread       measured (error 0)
1      writes 1.0 everywhere                              WRONG_ANSWER
2      writes nothing (the output stays NaN)              WRONG_ANSWER
3      the good kernel launched with 2,048 threads/block  RUNTIME (bad launch, context survives)
4      writes far outside its buffer                      RUNTIME (context breaks; child restarted)
5      the good kernel again                              measured (after the restart)
6      never ends                                         RUN_TIMEOUT (child killed)
7      the good kernel again                              measured (after the kill)
8      rejected at build time (not sent)                  absent from the results
=====  =================================================  ============================

The shapes are L8's (512 x 7 x 7, 512 3x3 filters, stride 1, pad 1).
"""

from __future__ import annotations

import json
import lzma
import sys
import tempfile
from pathlib import Path

from tensortune.core.values import ErrorKind

SHAPES = {"data": [1, 512, 7, 7], "kernel": [512, 512, 3, 3], "conv": [1, 512, 7, 7],
          "stride": [1, 1], "padding": [1, 1], "dilation": [1, 1]}
ARGS = ["conv", "data", "kernel"]

SOURCE = r"""
extern "C" __global__ void good(float* __restrict__ conv, const float* __restrict__ data,
                                const float* __restrict__ kernel) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= 512 * 49) return;
  int f = o / 49, y = (o % 49) / 7, x = o % 7;
  float acc = 0.f;
  for (int c = 0; c < 512; ++c)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) {
        int iy = y + r - 1, ix = x + s - 1;
        if (iy >= 0 && iy < 7 && ix >= 0 && ix < 7)
          acc += data[(c * 7 + iy) * 7 + ix] * kernel[((f * 512 + c) * 3 + r) * 3 + s];
      }
  conv[o] = acc;
}
extern "C" __global__ void ones(float* conv, const float* data, const float* kernel) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o < 512 * 49) conv[o] = 1.f;
}
extern "C" __global__ void nothing(float* conv, const float* data, const float* kernel) {}
extern "C" __global__ void wild(float* conv, const float* data, const float* kernel) {
  conv[(1ll << 40) + threadIdx.x] = 1.f;
}
extern "C" __global__ void forever(float* conv, const float* data, const float* kernel) {
  for (;;) { asm volatile("nanosleep.u32 1000;"); }  // an asm volatile loop: the compiler cannot drop it
}
"""


def kernel(name: str, threads: int = 256) -> dict:
    return {"name": name, "grid": [(512 * 49 + threads - 1) // threads, 1, 1], "block": [threads, 1, 1],
            "args": ARGS}


def build(out: Path) -> None:
    from tensortune.measure.cuda_bundle import FORMAT, nvcc_cubin, nvcc_version

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        cubin, _ = nvcc_cubin(SOURCE, "sm_90", Path(tmp))
    module = "faults-0000.0.cubin.xz"
    (out / module).write_bytes(lzma.compress(cubin))
    plan = [kernel("good"), kernel("ones"), kernel("nothing"), kernel("good", 2048), kernel("wild", 32),
            kernel("good"), kernel("forever", 32), kernel("good")]
    configs = [{"index": i, "error": 0, "kernels": [k], "module": module, "build_s": 0.0} for i, k in enumerate(plan)]
    configs.append({"index": len(plan), "error": int(ErrorKind.COMPILE_DEVICE), "message": "rejected at build",
                    "build_s": 0.0})
    (out / "faults-0000.json").write_text(json.dumps({"layer": "faults", "configs": configs}))
    manifest = {"format": FORMAT, "arch": "sm_90", "nvcc": nvcc_version(), "tvm": "-", "created": "-",
                "chunk": 64, "layers": {"faults": {"workload": "-", "template": "-", "target": {"kind": "cuda"},
                                                   "space_fingerprint": "-", "space_size": len(configs),
                                                   "n_configs": len(configs), "flops": 2 * 512 * 49 * 512 * 9,
                                                   "shapes": SHAPES, "chunks": ["faults-0000"]}}}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


EXPECTED = {0: 0, 1: int(ErrorKind.WRONG_ANSWER), 2: int(ErrorKind.WRONG_ANSWER), 3: int(ErrorKind.RUNTIME),
            4: int(ErrorKind.RUNTIME), 5: 0, 6: int(ErrorKind.RUN_TIMEOUT), 7: 0}

if __name__ == "__main__":
    build(Path(sys.argv[1]))
