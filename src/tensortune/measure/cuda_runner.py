"""Check and time a CUDA bundle's kernels on a GPU machine that has no TVM.

``python -m tensortune.measure.cuda_runner BUNDLE --out DIR`` needs Python, NumPy, CuPy (to load the
cubins and launch their kernels) and PyTorch (random inputs, cuDNN's reference output and time), and
nothing else of tensortune than ``core.values``. Per layer of the bundle (``measure.cuda_bundle``):

1. cuDNN's time for the layer (``torch.backends.cudnn.benchmark = True``; fp32 with TF32 off, the
   number that compares with our fp32 kernels, and with TF32 on, for the record), timed as the kernels,
   before the layer's kernels and again after them (after a warm-up of the GPU at the start of a run).
2. Every kernel the bundle sent: its output, written over a NaN-filled buffer, checked against cuDNN's
   fp32 output (max abs error at most 1e-3 of the reference's largest value, as on the CPU); then
   timed with CUDA events: ``number`` launches per repeat (enough for ``min_repeat_ms``), the median of
   ``repeat`` repeats. The launches of a repeat are captured in a CUDA graph, so the launch cost of
   Python does not count (where capture fails, a plain loop is timed and the result says so).

Error kinds are the CPU's: a launch that fails is ``RUNTIME``, a wrong or unwritten output
``WRONG_ANSWER``, a kernel still running after ``--kernel-timeout-s`` ``RUN_TIMEOUT``.

Kernels run in a child process, one per layer. A fault that breaks the CUDA context (an illegal
address) or a hung kernel ends only that child: the parent records the kernel it was running and
starts a new child with the rest. Results go to ``DIR/<layer>.jsonl`` one line per kernel as it is
measured, so a run that is stopped keeps what it measured and a rerun measures only the rest.
``DIR/gpu.json`` holds the GPU's name, driver, and clocks read with ``nvidia-smi`` before and after
each layer.
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tensortune.core.values import ErrorKind

RESULTS_FORMAT = "tensortune-cuda-results/1"
REPEAT, MIN_REPEAT_MS, MAX_NUMBER = 5, 2.0, 2000
KERNEL_TIMEOUT_S = 20.0
SMI_FIELDS = ("name", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem",
              "temperature.gpu", "power.draw", "clocks_event_reasons.active")


# ---------------------------------------------------------------------------------------------- bundle
def read_bundle(folder: Path) -> dict[str, Any]:
    doc = json.loads((folder / "manifest.json").read_text())
    if doc.get("format") != "tensortune-cuda-bundle/1":
        raise ValueError(f"{folder}: not a tensortune CUDA bundle")
    return doc


def layer_configs(folder: Path, manifest: dict[str, Any], layer: str) -> list[dict[str, Any]]:
    """The layer's config entries from its chunks, in index order; a missing chunk is an error."""
    out: list[dict[str, Any]] = []
    for stem in manifest["layers"][layer]["chunks"]:
        p = folder / f"{stem}.json"
        if not p.exists():
            raise ValueError(f"{folder}: chunk {stem} is missing (the bundle was not finished)")
        out.extend(json.loads(p.read_text())["configs"])
    return out


def read_results(path: Path) -> dict[int, dict[str, Any]]:
    """A results file's records by config index (a torn last line is ignored; a later record of an
    index replaces an earlier one)."""
    out: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "index" in rec:
                out[int(rec["index"])] = rec
    return out


def done_indices(path: Path) -> set[int]:
    """Indices already measured in a results file."""
    return set(read_results(path))


def append(path: Path, rec: dict[str, Any]) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        f.flush()
        os.fsync(f.fileno())


# ---------------------------------------------------------------------------------------------- gpu facts
def _smi_query(fields: tuple[str, ...]) -> list[str] | None:
    try:
        proc = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None
    return [v.strip() for v in lines[0].split(",")]


def smi() -> dict[str, str]:
    """One reading of ``nvidia-smi`` (empty where it cannot be run; a field this driver does not know
    is left out)."""
    vals = _smi_query(SMI_FIELDS)
    if vals is not None and len(vals) == len(SMI_FIELDS):
        got = dict(zip(SMI_FIELDS, vals, strict=True))
    else:
        got = {}
        for f in SMI_FIELDS:
            v = _smi_query((f,))
            if v:
                got[f] = v[0]
    return got | {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())} if got else {}


def gpu_description() -> dict[str, Any]:
    import cupy
    import torch

    p = torch.cuda.get_device_properties(0)
    return {"gpu": torch.cuda.get_device_name(0), "capability": f"{p.major}.{p.minor}",
            "multiprocessors": p.multi_processor_count, "memory_gib": round(p.total_memory / 2**30, 1),
            "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "cupy": cupy.__version__, "python": sys.version.split()[0], "smi": smi()}


# ---------------------------------------------------------------------------------------------- timing
def _number(one_ms: float, min_repeat_ms: float) -> int:
    return int(max(1, min(MAX_NUMBER, math.ceil(min_repeat_ms / max(one_ms, 1e-4)))))


def time_launches(launch: Any, repeat: int, min_repeat_ms: float) -> dict[str, Any]:
    """Seconds per launch of ``launch()`` (median of ``repeat`` repeats of ``number`` launches, timed
    with CUDA events); the launches of a repeat replayed from a CUDA graph where capture works."""
    import cupy as cp

    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    launch()
    end.record()
    end.synchronize()
    number = _number(cp.cuda.get_elapsed_time(start, end), min_repeat_ms)
    method, graph = "graph", None
    stream = cp.cuda.Stream(non_blocking=True)
    try:
        with stream:
            stream.begin_capture()
            try:
                for _ in range(number):
                    launch()
            finally:
                graph = stream.end_capture()
            graph.launch(stream)  # the first launch uploads the graph: not timed
        stream.synchronize()
    except Exception:
        method, graph = "loop", None
        cp.cuda.Device().synchronize()
    costs = []
    with stream:
        for _ in range(repeat):
            start.record(stream)
            if graph is not None:
                graph.launch(stream)
            else:
                for _ in range(number):
                    launch()
            end.record(stream)
            end.synchronize()
            costs.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / number)
    return {"cost": statistics.median(costs), "costs": costs, "number": number, "timing": method}


def time_torch(fn: Any, repeat: int, min_repeat_ms: float) -> dict[str, Any]:
    """As :func:`time_launches` for a PyTorch callable (torch's events and CUDA graphs)."""
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    number = _number(start.elapsed_time(end), min_repeat_ms)
    method, graph = "graph", None
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(number):
                fn()
    except Exception:
        method, graph = "loop", None
        torch.cuda.synchronize()
    costs = []
    for _ in range(repeat):
        start.record()
        if graph is not None:
            graph.replay()
        else:
            for _ in range(number):
                fn()
        end.record()
        end.synchronize()
        costs.append(start.elapsed_time(end) / 1e3 / number)
    return {"cost": statistics.median(costs), "costs": costs, "number": number, "timing": method}


# ---------------------------------------------------------------------------------------------- child
def _inputs(shapes: dict[str, Any]) -> tuple[Any, Any, Any]:
    import torch

    g = torch.Generator(device="cuda").manual_seed(0)
    data = torch.randn(shapes["data"], device="cuda", generator=g)
    weight = torch.randn(shapes["kernel"], device="cuda", generator=g)
    return data, weight, torch.empty(shapes["conv"], device="cuda")


def _conv(shapes: dict[str, Any]) -> Any:
    import torch

    return lambda data, weight: torch.nn.functional.conv2d(data, weight, None, tuple(shapes["stride"]),
                                                           tuple(shapes["padding"]), tuple(shapes["dilation"]))


def cudnn_times(shapes: dict[str, Any], repeat: int, min_repeat_ms: float) -> dict[str, Any]:
    import torch

    torch.backends.cudnn.benchmark = True
    data, weight, _ = _inputs(shapes)
    conv = _conv(shapes)
    out: dict[str, Any] = {}
    for label, tf32 in (("fp32", False), ("tf32", True)):
        torch.backends.cudnn.allow_tf32 = tf32
        out[label] = time_torch(lambda: conv(data, weight), repeat, min_repeat_ms)
    torch.backends.cudnn.allow_tf32 = False
    return out


def warm_up(seconds: float = 2.0) -> None:
    """Keep the GPU busy for ``seconds`` so that its clocks have risen before anything is timed (an idle
    H200 reads 345 MHz; the first timing of a run would otherwise see the ramp)."""
    import torch

    a = torch.randn(4096, 4096, device="cuda")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            a = torch.tanh(a @ a)
        torch.cuda.synchronize()


def check_output(out: Any, ref: Any) -> str | None:
    import torch

    if not bool(torch.isfinite(out).all()):
        return "output has NaN or Inf (unwritten or overflowed)"
    scale = float(ref.abs().max()) or 1.0
    err = float((out.double() - ref.double()).abs().max())
    if err > 1e-3 * scale + 1e-5:
        return f"max abs error {err:.3g} exceeds tolerance {1e-3 * scale:.3g} (reference max {scale:.3g})"
    return None


def _context_alive() -> bool:
    import cupy as cp

    try:
        cp.cuda.Device().synchronize()
        return float(cp.ones(4, dtype=cp.float32).sum().get()) == 4.0
    except Exception:
        return False


def _launch_failed(results: Path, rec: dict[str, Any], what: str, err: Exception, t0: float) -> bool:
    """Record a kernel whose launch (or timing) raised as ``RUNTIME``; whether the CUDA context survived."""
    append(results, rec | {"error": int(ErrorKind.RUNTIME), "message": f"{what}{type(err).__name__}: {err}"[:600],
                           "run_wall_s": round(time.perf_counter() - t0, 4)})
    return _context_alive()


def child(bundle: Path, layer: str, indices: list[int], results: Path, current: Path, repeat: int,
          min_repeat_ms: float) -> int:
    """Measure ``indices`` of ``layer`` into ``results``; exit 3 when the CUDA context broke."""
    import cupy as cp
    import torch

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    manifest = read_bundle(bundle)
    shapes = manifest["layers"][layer]["shapes"]
    entries = {e["index"]: e for e in layer_configs(bundle, manifest, layer)}
    data, weight, out = _inputs(shapes)
    ref = _conv(shapes)(data, weight)
    torch.cuda.synchronize()
    bufs = {"data": cp.asarray(data), "kernel": cp.asarray(weight), "conv": cp.asarray(out)}
    modules: dict[str, Any] = {}
    tmp = Path(tempfile.mkdtemp(prefix="tt-cubin-"))
    for i in indices:
        e = entries[i]
        current.write_text(str(i))
        t0 = time.perf_counter()
        rec: dict[str, Any] = {"index": i}
        try:
            if e["module"] not in modules:
                cubin = tmp / e["module"].removesuffix(".xz")
                cubin.write_bytes(lzma.decompress((bundle / e["module"]).read_bytes()))
                modules[e["module"]] = cp.RawModule(path=str(cubin))
            fns = [(modules[e["module"]].get_function(k["name"]), tuple(k["grid"]), tuple(k["block"]),
                    tuple(bufs[a] for a in k["args"])) for k in e["kernels"]]

            def launch(fns: list[Any] = fns) -> None:
                for fn, grid, block, args in fns:
                    fn(grid, block, args)

            out.fill_(float("nan"))
            torch.cuda.synchronize()
            launch()
            cp.cuda.Device().synchronize()
        except Exception as err:
            if not _launch_failed(results, rec, "", err, t0):
                return 3
            continue
        bad = check_output(out, ref)
        if bad:
            append(results, rec | {"error": int(ErrorKind.WRONG_ANSWER), "message": bad,
                                   "run_wall_s": round(time.perf_counter() - t0, 4)})
            continue
        try:
            timed = time_launches(launch, repeat, min_repeat_ms)
        except Exception as err:
            if not _launch_failed(results, rec, "timing: ", err, t0):
                return 3
            continue
        append(results, rec | {"error": 0, **timed, "run_wall_s": round(time.perf_counter() - t0, 4)})
    return 0


# ---------------------------------------------------------------------------------------------- parent
def _last_index(current: Path) -> int | None:
    try:
        return int(current.read_text().strip())
    except (OSError, ValueError):
        return None


def run_layer(bundle: Path, layer: str, out: Path, repeat: int, min_repeat_ms: float, kernel_timeout_s: float,
              deadline: float, log: Any) -> dict[str, Any]:
    """Measure every sent kernel of ``layer`` not yet in ``out/<layer>.jsonl``; restart the child after
    a crash or a hang. Returns counts."""
    manifest = read_bundle(bundle)
    results, current = out / f"{layer}.jsonl", out / f"{layer}.current"
    sent = [e["index"] for e in layer_configs(bundle, manifest, layer) if e["error"] == 0]
    restarts = 0
    while True:
        done = done_indices(results)
        todo = [i for i in sent if i not in done]
        if not todo or time.time() > deadline:
            break
        todo_file = out / f"{layer}.todo.json"
        todo_file.write_text(json.dumps(todo))
        current.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "tensortune.measure.cuda_runner", str(bundle), "--out", str(out),
               "--child", layer, "--repeat", str(repeat), "--min-repeat-ms", str(min_repeat_ms)]
        err_path = out / f"{layer}.stderr"
        with open(err_path, "w") as err:
            proc = subprocess.Popen(cmd, stdout=err, stderr=subprocess.STDOUT)
            seen, since, stopped = None, time.time(), False
            while proc.poll() is None:
                time.sleep(0.2)
                now = _last_index(current)
                if now != seen:
                    seen, since = now, time.time()
                if time.time() > deadline + kernel_timeout_s:
                    proc.kill()
                    proc.wait()
                    stopped = True
                    break
                if seen is not None and time.time() - since > kernel_timeout_s and seen not in done_indices(results):
                    proc.kill()
                    proc.wait()
                    append(results, {"index": seen, "error": int(ErrorKind.RUN_TIMEOUT),
                                     "message": f"still running after {kernel_timeout_s:.0f} s; the child was killed",
                                     "run_wall_s": round(time.time() - since, 2)})
                    break
        rc = proc.returncode
        if stopped:  # out of time: the kernel it was on is measured by a later run
            break
        if rc == 0:
            continue
        restarts += 1
        last = _last_index(current)
        tail = err_path.read_text()[-600:] if err_path.exists() else ""
        if last is not None and last not in done_indices(results):
            append(results, {"index": last, "error": int(ErrorKind.RUNTIME),
                             "message": f"the measuring process died (exit {rc}): {tail.strip()[-400:]}",
                             "run_wall_s": None})
        elif rc != 3 and last is None:
            log(f"{layer}: the child failed before its first kernel (exit {rc}):\n{tail}")
            raise RuntimeError(f"{layer}: the measuring process failed before its first kernel (exit {rc})")
        if restarts > 50:
            raise RuntimeError(f"{layer}: more than 50 restarts of the measuring process")
    current.unlink(missing_ok=True)
    (out / f"{layer}.todo.json").unlink(missing_ok=True)
    done = done_indices(results)
    return {"sent": len(sent), "measured": sum(i in done for i in sent), "restarts": restarts}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tensortune.measure.cuda_runner",
                                 description="Check and time a CUDA bundle's kernels on this GPU (no TVM needed).")
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--out", type=Path, required=True, help="results folder (resumes what is there)")
    ap.add_argument("--layers", default="", help="comma-separated layers (default: all of the bundle)")
    ap.add_argument("--repeat", type=int, default=REPEAT)
    ap.add_argument("--min-repeat-ms", type=float, default=MIN_REPEAT_MS)
    ap.add_argument("--kernel-timeout-s", type=float, default=KERNEL_TIMEOUT_S)
    ap.add_argument("--budget-s", type=float, default=0, help="start no kernel after this many seconds (0: none)")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        todo = json.loads((a.out / f"{a.child}.todo.json").read_text())
        return child(a.bundle, a.child, todo, a.out / f"{a.child}.jsonl", a.out / f"{a.child}.current",
                     a.repeat, a.min_repeat_ms)
    try:
        manifest = read_bundle(a.bundle)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    layers = [s.strip() for s in a.layers.split(",") if s.strip()] or list(manifest["layers"])
    unknown = [x for x in layers if x not in manifest["layers"]]
    if unknown:
        print(f"error: layers {unknown} are not in the bundle (it has {list(manifest['layers'])})", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    t_start = time.time()
    deadline = t_start + a.budget_s if a.budget_s > 0 else float("inf")
    info_path = a.out / "gpu.json"
    info = json.loads(info_path.read_text()) if info_path.exists() else {"format": RESULTS_FORMAT, "layers": {}}

    def log(msg: str) -> None:
        print(f"[{time.time() - t_start:7.1f}s] {msg}", flush=True)

    info["machine"] = gpu_description()
    info["protocol"] = {"repeat": a.repeat, "min_repeat_ms": a.min_repeat_ms, "max_number": MAX_NUMBER,
                        "cost": "median over repeats of the mean of `number` launches, CUDA events",
                        "check": "max abs error <= 1e-3 x max |cuDNN fp32 output| + 1e-5, output pre-filled with NaN",
                        "caches": "not flushed between launches (inputs stay in L2, as AutoTVM's GPU timing)",
                        "kernel_timeout_s": a.kernel_timeout_s}
    log(f"{info['machine']['gpu']}, driver {info['machine']['smi'].get('driver_version', '?')}, "
        f"SM clock {info['machine']['smi'].get('clocks.sm', '?')} idle")
    warm_up()
    info["smi_warm"] = smi()
    log(f"warmed up: SM clock {info['smi_warm'].get('clocks.sm', '?')}")
    for layer in layers:
        entry = info["layers"].setdefault(layer, {})
        if "cudnn" not in entry:
            entry["smi_before"] = smi()
            entry["cudnn"] = cudnn_times(manifest["layers"][layer]["shapes"], a.repeat, a.min_repeat_ms)
            log(f"{layer}: cuDNN fp32 {entry['cudnn']['fp32']['cost'] * 1e6:.1f} us, "
                f"tf32 {entry['cudnn']['tf32']['cost'] * 1e6:.1f} us")
            _write(info_path, info)
        t0 = time.time()
        counts = run_layer(a.bundle, layer, a.out, a.repeat, a.min_repeat_ms, a.kernel_timeout_s, deadline, log)
        entry["smi_after"] = smi()
        entry["cudnn_after"] = cudnn_times(manifest["layers"][layer]["shapes"], a.repeat, a.min_repeat_ms)
        log(f"{layer}: cuDNN again after the kernels: fp32 {entry['cudnn_after']['fp32']['cost'] * 1e6:.1f} us")
        entry["wall_s"] = round(entry.get("wall_s", 0) + time.time() - t0, 1)
        entry |= counts
        _write(info_path, info)
        log(f"{layer}: {counts['measured']}/{counts['sent']} kernels measured, {counts['restarts']} restarts, "
            f"{time.time() - t0:.1f} s")
    return 0


def _write(path: Path, doc: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
