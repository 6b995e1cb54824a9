"""What a deployment engineer uses today, timed in the same run and protocol as our build: PyTorch
eager (oneDNN), PyTorch frozen (``torch.jit.freeze`` + ``optimize_for_inference``) and ONNX Runtime
(CPU execution provider, intra-op threads = cores, all graph optimisations).

One protocol for every peer and every build: outputs checked first, then ``repeat`` rounds; in each
round every contender runs one repeat (the model back to back for at least ``min_repeat_ms``, the mean
per call), in an order that rotates from round to round; the latency is the median of a contender's
repeats. Interleaving is what makes the ratios trustworthy on a shared machine: on our 2-vCPU VM the
speed of a spin loop swung between 46 and 122 (x 10^5 iterations/s) within 15 seconds, with no steal
time reported, so timing one contender's ten repeats after another's compared two speeds of the host.
A peer that is not installed is skipped with a reason."""

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


def time_calls(fn: Callable[[], Any], repeat: int = 10, min_repeat_ms: int = 200) -> Timing:
    """The shared protocol for one contender alone: one warm-up call, then ``repeat`` repeats."""
    fn()
    res = [one_repeat_ms(fn, min_repeat_ms) for _ in range(repeat)]
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


def _ort_session_fn(onnx: bytes | str, x: np.ndarray, threads: int) -> tuple[Callable[[], Any], Any]:
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


def _serve(conn: Any, fn: Callable[[], Any], out: Any) -> None:
    """Send ``out``, then one timed repeat of ``fn`` per request (its minimum milliseconds) until told to stop."""
    conn.send(("ok", out))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        conn.send(one_repeat_ms(fn, int(msg)))


def error_line(e: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0][:200] if text else ''}"


def _ort_server(conn: Any, onnx: bytes | str, x: np.ndarray, threads: int) -> None:
    """The ONNX Runtime process (``onnx``: the model's bytes or an .onnx file's path): its output first,
    then one timed repeat per request until told to stop."""
    try:
        fn, out = _ort_session_fn(onnx, x, threads)
        fn()  # warmed up before it answers: a run after the answer would overlap the parent's busy-core check
    except Exception as e:  # the session cannot take this model: the parent skips the peer with this reason
        conn.send(("error", error_line(e)))
        return
    _serve(conn, fn, out)


def _library_server(conn: Any, lib_path: str, x: np.ndarray, threads: int) -> None:
    """A written library run as a user deploys it: a process with the TVM runtime alone (what
    ``models.deploy`` documents: ``TVM_NUM_THREADS`` set before the first run, the Relax VM, no
    tensortune code on the path of a call); its output first, then one timed repeat per request."""
    import os

    os.environ["TVM_NUM_THREADS"] = str(threads)
    try:
        import tvm
        from tvm.runtime.vm import VirtualMachine

        f = VirtualMachine(tvm.runtime.load_module(lib_path), tvm.cpu())["main"]
        inp = tvm.runtime.tensor(x)

        def fn() -> Any:
            return f(inp)

        out = fn()
        out = (out if isinstance(out, tvm.runtime.Tensor) else out[0]).numpy()
        fn()
    except Exception as e:
        conn.send(("error", error_line(e)))
        return
    _serve(conn, fn, out)


class ServedProcess:
    """A contender checked and timed in a process of its own, which lives for the whole timing, so its
    repeats interleave with the other contenders'. ONNX Runtime runs so: in the tuning process it ran
    1.8x slower than alone (ResNet-18: 16.5 ms against 9.1-9.3 ms from the same model in a fresh
    process), even with its threads free to use every core; a user runs it alone, so it runs alone. So
    does our own library (``models.pipeline.evaluate``), as a user deploys it, beside the same build in the
    tuning process (stop 48's tune runs reported it 20-25% slower than fresh processes later did)."""

    def __init__(self, what: str, server: Callable[..., None], *args: Any) -> None:
        import multiprocessing as mp

        self.what = what
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=server, args=(child, *args), daemon=True)
        self._proc.start()
        child.close()
        try:
            status, value = self._recv()
        except BaseException:
            self.close()
            raise
        if status != "ok":
            self.close()
            raise RuntimeError(value)
        self.output = value

    def _recv(self) -> Any:
        if not self._conn.poll(600):
            raise RuntimeError(f"{self.what}'s process did not answer within 600 s")
        try:
            return self._conn.recv()
        except EOFError:
            raise RuntimeError(f"{self.what}'s process died (exit code {self._proc.exitcode})") from None

    def repeat_ms(self, min_repeat_ms: int) -> float:
        self._conn.send(min_repeat_ms)
        return float(self._recv())

    def settle(self, max_s: float = 1.0, quiet_s: float = 0.03) -> float:
        """Wait until the process has used no CPU for ``quiet_s`` (at most ``max_s``); the seconds waited.
        A thread pool spins a while after its work: stop 81 measured 200-250 ms of a core after a repeat of
        a TVM library (ResNet-18), 60 ms after ONNX Runtime's, enough to slow whatever runs next on 2 cores."""
        import psutil

        t0 = time.perf_counter()
        try:
            proc = psutil.Process(self._proc.pid)
            last = sum(proc.cpu_times()[:2])
            while time.perf_counter() - t0 < max_s:
                time.sleep(quiet_s)
                now = sum(proc.cpu_times()[:2])
                if now == last:
                    break
                last = now
        except psutil.Error:  # the process is gone: nothing spins
            pass
        return time.perf_counter() - t0

    def close(self) -> None:
        """Stop the process (asked first, killed if it does not go): none is ever left behind."""
        try:
            self._conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)
        self._conn.close()


def ort_process(model: Any, x: np.ndarray, threads: int) -> ServedProcess:
    """ONNX Runtime on the model's ONNX form, in a process of its own."""
    return ServedProcess("ONNX Runtime", _ort_server, _onnx_bytes(model, x), x, threads)


def library_process(lib_path: str, x: np.ndarray, threads: int) -> ServedProcess:
    """A written library (``export_library``) on ``x``, in a process with the TVM runtime alone."""
    return ServedProcess("the library", _library_server, lib_path, x, threads)


def one_repeat_ms(fn: Callable[[], Any], min_repeat_ms: int) -> float:
    """One repeat of the shared protocol: ``fn`` back to back for at least ``min_repeat_ms``, the mean per call."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        el = time.perf_counter() - t0
        if el * 1e3 >= min_repeat_ms:
            return el / n * 1e3


@dataclass
class Contender:
    """Something timed in the interleaved protocol: ``repeat_ms(min_repeat_ms)`` runs one repeat."""

    name: str
    repeat_ms: Callable[[int], float]
    close: Callable[[], None] = lambda: None


def time_interleaved(contenders: list[Contender], repeat: int = 10, min_repeat_ms: int = 200,
                     pause_s: float = 0.3) -> dict[str, Timing]:
    """``repeat`` rounds, each running one repeat of every contender, the order rotated each round (so
    none always follows the same one); a pause between repeats lets the last one's idle threads go to
    sleep: TVM's pool workers spin for a while after a parallel loop, and with a 50 ms pause PyTorch eager
    timed 45-54 ms after a tensortune repeat and 35-37 ms after ONNX Runtime's (ResNet-18, one run).
    One warm-up repeat each first (not counted)."""
    for c in contenders:
        c.repeat_ms(min(min_repeat_ms, 50))
    res: dict[str, list[float]] = {c.name: [] for c in contenders}
    k = len(contenders)
    for r in range(repeat):
        for i in range(k):
            c = contenders[(i + r) % k]
            time.sleep(pause_s)
            res[c.name].append(c.repeat_ms(min_repeat_ms))
    return {n: Timing(float(np.median(v)), v) for n, v in res.items()}


@dataclass
class PreparedPeer:
    """A peer checked and ready to time (``contender``), or skipped (``skipped`` says why)."""

    name: str
    contender: Contender | None
    max_abs_error: float | None = None
    skipped: str = ""


def prepare_peer(name: str, model: Any, x: np.ndarray, ref: np.ndarray | None, threads: int) -> PreparedPeer:
    """Make one peer, run it once and check its output; a missing package or a model the peer cannot
    take is a skip, not an error. It runs off any core pinning TVM left on this thread
    (``core.threads.unpinned``), and its pool is made there, so its threads may use every core; so
    do its timed repeats."""
    from tensortune.core.threads import unpinned

    with unpinned():
        try:
            if name in ("eager", "frozen"):
                if model.torch_module is None:
                    return PreparedPeer(name, None, skipped="no PyTorch module (the model came from ONNX)")
                fn, out = _torch_fn(model.torch_module, x, threads, frozen=name == "frozen")

                def rep(ms: int, fn: Callable[[], Any] = fn) -> float:
                    with unpinned():
                        return one_repeat_ms(fn, ms)

                contender = Contender(name, rep)
            elif name == "onnxruntime":
                try:
                    import onnxruntime  # noqa: F401
                except ImportError:
                    return PreparedPeer(name, None,
                                        skipped="onnxruntime is not installed (pip install 'tensortune[peers]')")
                proc = ort_process(model, x, threads)
                out = proc.output
                contender = Contender(name, proc.repeat_ms, proc.close)
            else:
                raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")
        except ValueError:
            raise
        except Exception as e:  # the peer cannot run this model: say why, go on with the others
            return PreparedPeer(name, None, skipped=error_line(e))
    err = float(np.max(np.abs(np.asarray(out, dtype=np.float64) - ref))) if ref is not None else None
    return PreparedPeer(name, contender, err)


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
