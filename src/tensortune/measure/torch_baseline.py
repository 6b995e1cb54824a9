"""Library baselines measured with the same protocol as our kernels: PyTorch (oneDNN) on the CPU."""

from __future__ import annotations

import statistics
import time
from typing import Any

from tensortune.workloads import Conv2d, Dense


def torch_gflops(workload: Any, threads: int, repeat: int = 5, min_repeat_ms: int = 40) -> tuple[float, list[float]]:
    """GFLOP/s of PyTorch's CPU operator (oneDNN for conv2d) on ``workload``; (median GFLOP/s, costs)."""
    import torch

    torch.set_num_threads(threads)
    inputs = [torch.from_numpy(a) for a in workload.make_inputs(seed=0)]
    if isinstance(workload, Conv2d):
        def f() -> Any:
            return torch.nn.functional.conv2d(inputs[0], inputs[1], stride=workload.stride, padding=workload.padding,
                                              dilation=workload.dilation)
    elif isinstance(workload, Dense):
        def f() -> Any:
            return torch.nn.functional.linear(inputs[0], inputs[1])
    else:
        raise ValueError(f"no PyTorch baseline for {workload!r}")
    with torch.no_grad():
        for _ in range(3):
            f()
        t0 = time.perf_counter()
        f()
        one = max(time.perf_counter() - t0, 1e-7)
        number = max(1, int(min_repeat_ms / 1000 / one))
        costs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(number):
                f()
            costs.append((time.perf_counter() - t0) / number)
    return workload.flops / statistics.median(costs) / 1e9, costs
