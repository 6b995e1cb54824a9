"""What a deployment engineer uses today, timed in the same run and protocol as our build: PyTorch
eager (oneDNN), PyTorch frozen (``torch.jit.freeze`` + ``optimize_for_inference``) and ONNX Runtime
(CPU execution provider, intra-op threads = cores, all graph optimisations).

One protocol for every peer and every build: outputs checked first, then ``repeat`` repeats, each
running the model back to back for at least ``min_repeat_ms`` and reporting the mean per call; the
latency is the median of the repeats. A peer that is not installed is skipped with a reason."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

PEERS = ("eager", "frozen", "onnxruntime")


@dataclass
class Timing:
    median_ms: float
    repeats_ms: list[float]


@dataclass
class PeerResult:
    name: str
    timing: Timing | None
    max_abs_error: float | None = None
    skipped: str = ""  # why it was not timed


def time_calls(fn: Callable[[], Any], repeat: int = 10, min_repeat_ms: int = 200) -> Timing:
    """The shared protocol: one warm-up call, then ``repeat`` repeats of >= ``min_repeat_ms`` each."""
    fn()
    res = []
    for _ in range(repeat):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            el = time.perf_counter() - t0
            if el * 1e3 >= min_repeat_ms:
                break
        res.append(el / n * 1e3)
    return Timing(float(np.median(res)), res)


def _torch_fn(module: Any, x: np.ndarray, threads: int, frozen: bool) -> tuple[Callable[[], Any], Any]:
    import torch

    torch.set_num_threads(threads)
    t = torch.from_numpy(x)
    module = module.eval()
    if frozen:
        with torch.no_grad():
            module = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(module, (t,))))

    def call() -> Any:
        with torch.no_grad():
            return module(t)

    return call, call().numpy()


def _onnx_bytes(model: Any, x: np.ndarray) -> bytes:
    """The model as ONNX: the user's file as it is, or PyTorch's TorchScript exporter on the module."""
    path = model.extra.get("onnx_path") if model.source == "onnx" else None
    if path:
        with open(path, "rb") as f:
            return f.read()
    import warnings

    import torch

    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model.torch_module.eval(), (torch.from_numpy(x),), buf, dynamo=False, opset_version=17,
                          input_names=["input"], output_names=["output"])
    return buf.getvalue()


def _ort_session_fn(onnx: bytes, x: np.ndarray, threads: int) -> tuple[Callable[[], Any], Any]:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    feed = {name: x}

    def call() -> Any:
        return sess.run(None, feed)[0]

    return call, call()


def _ort_child(onnx: bytes, x: np.ndarray, threads: int, repeat: int, min_repeat_ms: int) -> tuple[Any, Timing]:
    fn, out = _ort_session_fn(onnx, x, threads)
    return out, time_calls(fn, repeat, min_repeat_ms)


def _ort_in_fresh_process(model: Any, x: np.ndarray, threads: int, repeat: int,
                          min_repeat_ms: int) -> tuple[Any, Timing]:
    """ONNX Runtime checked and timed in a process of its own. In the tuning process it ran 1.8x slower
    than alone (ResNet-18: 16.5 ms against 9.1-9.3 ms from the same model in a fresh process), even
    with its threads free to use every core; a user runs it alone, so it is timed alone."""
    import multiprocessing as mp

    onnx = _onnx_bytes(model, x)
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(_ort_child, (onnx, x, threads, repeat, min_repeat_ms))


def run_peer(name: str, model: Any, x: np.ndarray, ref: np.ndarray | None, threads: int, repeat: int = 10,
             min_repeat_ms: int = 200) -> PeerResult:
    """Check and time one peer; a missing package or a model the peer cannot take is a skip, not an error.
    It runs off any core pinning TVM left on this thread (``core.threads.unpinned``), and its pool is
    made there, so its threads may use every core."""
    from tensortune.core.threads import unpinned

    with unpinned():
        return _run_peer(name, model, x, ref, threads, repeat, min_repeat_ms)


def _run_peer(name: str, model: Any, x: np.ndarray, ref: np.ndarray | None, threads: int, repeat: int,
              min_repeat_ms: int) -> PeerResult:
    try:
        if name in ("eager", "frozen"):
            if model.torch_module is None:
                return PeerResult(name, None, skipped="no PyTorch module (the model came from ONNX)")
            fn, out = _torch_fn(model.torch_module, x, threads, frozen=name == "frozen")
        elif name == "onnxruntime":
            try:
                import onnxruntime  # noqa: F401
            except ImportError:
                return PeerResult(name, None, skipped="onnxruntime is not installed (pip install 'tensortune[peers]')")
            out, timing = _ort_in_fresh_process(model, x, threads, repeat, min_repeat_ms)
        else:
            raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")
    except ValueError:
        raise
    except Exception as e:  # the peer cannot run this model: say why, go on with the others
        return PeerResult(name, None, skipped=f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}")
    if name != "onnxruntime":
        timing = time_calls(fn, repeat, min_repeat_ms)
    err = float(np.max(np.abs(np.asarray(out, dtype=np.float64) - ref))) if ref is not None else None
    return PeerResult(name, timing, err)


def sgemm_gflops(threads: int, n: int = 2048, repeat: int = 5) -> float:
    """This machine's fp32 matrix-multiply throughput (PyTorch, ``n`` x ``n``), the roofline our
    convolutions are compared with."""
    import torch

    from tensortune.core.threads import unpinned

    torch.set_num_threads(threads)
    a, b = torch.randn(n, n), torch.randn(n, n)
    with unpinned():
        t = time_calls(lambda: torch.matmul(a, b), repeat=repeat, min_repeat_ms=200)
    return 2.0 * n**3 / (t.median_ms * 1e-3) / 1e9
