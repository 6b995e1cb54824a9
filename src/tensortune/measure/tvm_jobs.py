"""Functions that run inside isolated worker processes: build a config, run a built kernel.

They return plain dicts (picklable, no TVM objects): ``{"error": int, "message": str}`` on failure.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from typing import Any

import numpy as np

from tensortune.core.values import ErrorKind

_PREPARED: dict[tuple[str, str], tuple[list[np.ndarray], np.ndarray]] = {}
_RANDOM: dict[str, np.ndarray] = {}  # per dtype: one flat buffer of random values (see ``random_layout``)


def _tvm_target(target_json: str) -> Any:
    import tvm

    t = json.loads(target_json)
    if t.get("kind") == "cuda":
        return tvm.target.Target(t, host=tvm.target.Target({"kind": "llvm"}))
    return tvm.target.Target(t)


def _workload(spec: dict[str, Any]) -> Any:
    from tensortune.workloads import workload_from_key

    return workload_from_key(spec["workload"])


def lower_gpu(mod: Any, target: Any) -> tuple[Any, dict[str, int]]:
    """A scheduled CUDA module lowered as ``tvm.compile`` lowers it (host and device functions split),
    and the target's per-block limits."""
    import tvm
    from tvm import s_tir

    bound = tvm.tirx.transform.BindTarget(target)(mod)
    with target:
        lowered = s_tir.pipeline.default_s_tir_pipeline()[0](bound)
    limits = {"max_threads_per_block": int(target.attrs.get("max_num_threads", 1024)),
              "max_shared_memory_per_block": int(target.attrs.get("max_shared_memory_per_block", None) or 49152),
              "max_vthread": 8}
    return lowered, limits


def verify_gpu(mod: Any, target: Any) -> str | None:
    """Lower a scheduled CUDA module as ``tvm.compile`` does and check every kernel with TVM's
    ``verify_gpu_code`` against the per-block limits; a description of the violation, or None."""
    from tvm import s_tir

    lowered, limits = lower_gpu(mod, target)
    for _, func in lowered.functions_items():
        if not s_tir.analysis.verify_gpu_code(func, limits):
            return describe_gpu_kernel(func.script(), limits)
    return None


def describe_gpu_kernel(script: str, limits: dict[str, int]) -> str:
    """Threads per block and shared bytes of a lowered kernel (from its TVMScript), against the limits."""
    import re

    threads = 1
    for _, n in set(re.findall(r'launch_thread\("(threadIdx\.\w)", (\d+)\)', script)):
        threads *= int(n)
    shared = 0
    for dims, dtype in re.findall(r'alloc_shared\(\(([\d, ]+)\),?\s*(?:"(\w+)")?', script):
        n = 1
        for d in dims.replace(" ", "").strip(",").split(","):
            n *= int(d)
        bits = int(re.sub(r"\D", "", dtype) or 32)
        shared += n * bits // 8
    parts = [f"{threads} threads per block (limit {limits['max_threads_per_block']})",
             f"{shared} B shared memory per block (limit {limits['max_shared_memory_per_block']} B)"]
    return "invalid GPU kernel (VerifyGPUCode): " + ", ".join(parts)


def _short(e: Exception) -> str:
    """One readable line of a TVM error (whose text may hold a whole IR dump)."""
    text = str(e)
    if "Error message:" in text:
        text = text.split("Error message:", 1)[1]
    return f"{type(e).__name__}: {text.strip()[-600:]}"


def build(spec: dict[str, Any], values: dict[str, Any], out_path: str) -> dict[str, Any]:
    """Instantiate the template for ``values``, compile it and export a shared library."""
    import tvm

    from tensortune.templates import get_template

    t0 = time.perf_counter()
    try:
        template = get_template(spec["template"])
        mod = template.instantiate(_workload(spec), values)
    except Exception as e:
        return {"error": int(ErrorKind.INSTANTIATION), "message": _short(e)}
    target = _tvm_target(spec["target"])
    if target.kind.name == "cuda":
        problem = verify_gpu(mod, target)  # a failure to lower surfaces below as a compile error
        if problem:
            return {"error": int(ErrorKind.COMPILE_DEVICE), "message": problem, "build_s": time.perf_counter() - t0}
    arg_shapes = None
    if spec["workload"].startswith("tir:"):
        # as MetaSchedule's builder: weights whose layout the schedule rewrote arrive pre-transformed
        # (the deployed model transforms its constant weights once, at build time)
        from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

        mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
        from tvm.s_tir.meta_schedule.arg_info import ArgInfo

        arg_shapes = [[int(d) for d in a.shape] for a in ArgInfo.from_prim_func(mod["main"])]
    try:
        lib = tvm.compile(mod, target=target)
    except Exception as e:
        kind = ErrorKind.COMPILE_DEVICE if target.kind.name != "llvm" else ErrorKind.COMPILE_HOST
        return {"error": int(kind), "message": _short(e)}
    try:
        lib.export_library(out_path)
        if arg_shapes is not None:
            with open(out_path + ".shapes.json", "w") as f:
                json.dump(arg_shapes, f)
    except Exception as e:
        return {"error": int(ErrorKind.COMPILE_HOST), "message": f"export failed: {type(e).__name__}: {e}"}
    return {"path": out_path, "build_s": time.perf_counter() - t0}


def prepare(spec: dict[str, Any]) -> bool:
    """Compute (and cache in this worker) the workload's reference inputs and output.

    Also loads TVM and the template here, under the generous preparation timeout: a freshly started
    runner (the first, or one restarted after a hung kernel) would otherwise spend seconds of the
    next kernel's run timeout importing them, and a slow machine recorded a correct kernel as
    RUN_TIMEOUT that way."""
    import tvm  # noqa: F401

    from tensortune.templates import get_template

    get_template(spec["template"])
    _prepared(spec)
    return True


def _prepared(spec: dict[str, Any]) -> tuple[list[np.ndarray], np.ndarray]:
    """Reference inputs and output of the workload, cached per worker (inputs in workload layout)."""
    key = (spec["workload"], spec["template"])
    if key not in _PREPARED:
        wl = _workload(spec)
        inputs = wl.make_inputs(seed=0)
        _PREPARED.clear()
        _RANDOM.clear()  # another task: the last one's random layouts go too (a worker holds one task's)
        _PREPARED[key] = (inputs, wl.reference(inputs))
    return _PREPARED[key]


def check_output(out: np.ndarray, ref: np.ndarray) -> str | None:
    if out.shape != ref.shape:
        return f"output shape {out.shape} != reference {ref.shape}"
    if not np.all(np.isfinite(out)):
        return "output has NaN or Inf"
    scale = float(np.max(np.abs(ref))) or 1.0
    err = float(np.max(np.abs(out.astype(np.float64) - ref)))
    if err > 1e-3 * scale + 1e-5:
        return f"max abs error {err:.3g} exceeds tolerance {1e-3 * scale:.3g} (reference max {scale:.3g})"
    return None


_SESSION_LOST = ("RPCSessionTimeout", "Connection", "connection", "Broken pipe", "socket", "Socket", "closed",
                 "RPCError", "EOF")


def _session_lost(message: str) -> bool:
    return any(s in message for s in _SESSION_LOST)


def _timed(f: Any, dev: Any, args: list[Any], timing: dict[str, Any], remote: bool = False) -> list[float]:
    if timing.get("cold") and dev.dlpack_device_type() == 1:
        # each repeat one run after evicting every argument but the first (the input, which the op before
        # it has just written) from the CPU caches: inside a whole model the weights come from memory. Not
        # where the arguments exceed this machine's last-level cache (``core.caches``): no run keeps them
        # cached for the next, and flushing hundreds of MB took a second per run (an RPC device's caches
        # are not this machine's: there the flush stays)
        from tensortune.core.caches import cold_preproc, last_level_cache_bytes

        ev = f.time_evaluator("main", dev, number=1, repeat=int(timing["repeat"]), min_repeat_ms=0,
                              f_preproc=cold_preproc(args, None if remote else last_level_cache_bytes()))
    else:
        ev = f.time_evaluator("main", dev, number=1, repeat=int(timing["repeat"]),
                              min_repeat_ms=int(timing["min_repeat_ms"]))
    return [float(x) for x in ev(*args).results]


def random_layout(shape: tuple[int, ...], dtype: str, index: int) -> np.ndarray:
    """Random values for argument ``index`` of a kernel whose schedule rewrote its layout (only timed,
    never checked): a read-only view of one buffer per worker and dtype, drawn once, grown when a larger
    layout comes, dropped when the worker moves to another task (``_prepared``). Each config of a task may
    rewrite to its own shape (blocking by its tile sizes), so a cache by shape missed; drawn afresh in
    float64 for each measurement they took 3.0-3.1 s of VGG-16 fc6's 3.2 s per measurement (4096 x 25088
    weights, stop 68). Every measurement copies them into its own tensors."""
    n = math.prod(shape) + index  # argument ``index`` starts ``index`` values in: its own values
    buf = _RANDOM.get(dtype)
    if buf is None or buf.size < n:
        rng = np.random.default_rng(1)
        flat = rng.standard_normal(n, dtype=np.float32) if dtype in ("float32", "float64") else rng.standard_normal(n)
        buf = flat.astype(dtype, copy=False)
        buf.setflags(write=False)
        _RANDOM[dtype] = buf
    return buf[index:n].reshape(shape)


def _execute(lib: Any, dev: Any, spec: dict[str, Any], values: dict[str, Any], timing: dict[str, Any],
             make_tensor: Any, arg_shapes: list[list[int]] | None = None, remote: bool = False) -> dict[str, Any]:
    """Run a loaded kernel once on the template's inputs, check its output, then time it.

    ``arg_shapes`` (TIR tasks) are the built function's argument shapes: where the schedule rewrote a
    weight's layout, that argument gets random values in the new layout and the output is not
    checked (as in MetaSchedule's runner); the tuned model's output is checked end to end instead."""
    from tensortune.templates import get_template

    inputs, ref = _prepared(spec)
    # a copy: the list (and arrays) cached by ``_prepared`` serve every later config of this worker; a
    # config whose weight layout was rewritten must not leave its random weights there (before this, each
    # later config with that layout was checked against them and stored as a false WRONG_ANSWER)
    args_np = list(get_template(spec["template"]).prepare_inputs(_workload(spec), values, inputs))
    unchecked = False
    if arg_shapes is not None:
        for i, shape in enumerate(arg_shapes[:-1]):
            if tuple(shape) != tuple(args_np[i].shape):
                args_np[i] = random_layout(tuple(shape), str(args_np[i].dtype), i)
                unchecked = True
    from tensortune.core.threads import off_worker_cores

    # off the core of TVM's pinned pool worker: else every parallel kernel may run at half speed
    with off_worker_cores() if not remote and dev.dlpack_device_type() == 1 else contextlib.nullcontext():
        return _check_and_time(lib, dev, args_np, ref, unchecked, timing, make_tensor, remote)


def _check_and_time(lib: Any, dev: Any, args_np: list[np.ndarray], ref: np.ndarray, unchecked: bool,
                    timing: dict[str, Any], make_tensor: Any, remote: bool) -> dict[str, Any]:
    try:
        args = [make_tensor(a, dev) for a in args_np]
        args.append(make_tensor(np.full(ref.shape, np.nan, dtype="float32"), dev))
        lib["main"](*args)
        dev.sync()
        out = args[-1].numpy()
    except Exception as e:
        return _run_failure(e, remote)
    bad = None if unchecked else check_output(out, ref)
    if bad:
        return {"error": int(ErrorKind.WRONG_ANSWER), "message": bad}
    try:
        return {"costs": _timed(lib, dev, args, timing, remote)}
    except Exception as e:
        return _run_failure(e, remote)


def _run_failure(e: Exception, remote: bool) -> dict[str, Any]:
    """A kernel's failure; over RPC, a lost session is the device's (``infra``: tried again elsewhere)."""
    if remote and _session_lost(f"{type(e).__name__}: {e}"):
        return {"infra": "session", "message": _short(e)}
    return {"error": int(ErrorKind.RUNTIME), "message": _short(e)}


def run_local(lib_path: str, spec: dict[str, Any], values: dict[str, Any], timing: dict[str, Any]) -> dict[str, Any]:
    """Load a built kernel, check its output against the reference, then time it."""
    import tvm

    dev = tvm.cuda(0) if json.loads(spec["target"]).get("kind") == "cuda" else tvm.cpu(0)
    try:
        lib = tvm.runtime.load_module(lib_path)
    except Exception as e:
        return {"error": int(ErrorKind.RUNTIME), "message": _short(e)}
    shapes = None
    if os.path.exists(lib_path + ".shapes.json"):
        with open(lib_path + ".shapes.json") as f:
            shapes = json.load(f)
    return _execute(lib, dev, spec, values, timing, tvm.runtime.tensor, shapes)


def run_rpc(lib_path: str, spec: dict[str, Any], values: dict[str, Any], timing: dict[str, Any],
            tracker: dict[str, Any]) -> dict[str, Any]:
    """As :func:`run_local`, on a device leased from a TVM RPC tracker."""
    from tvm import rpc
    from tvm.runtime import tensor

    problem = _probe(tracker["host"], int(tracker["port"]))
    if problem:  # TVM's own client would retry a refused connection for 60 s
        return {"infra": "connect", "message": problem}
    try:  # reaching the tracker and a device, uploading, loading: the infrastructure's part
        tr = rpc.connect_tracker(tracker["host"], int(tracker["port"]))
        remote = tr.request(tracker["key"], priority=1, session_timeout=int(tracker.get("session_timeout", 60)),
                            max_retry=int(tracker.get("max_retry", 3)))
        remote.upload(lib_path)
        lib = remote.load_module(os.path.basename(lib_path))
        dev = remote.cuda(0) if json.loads(spec["target"]).get("kind") == "cuda" else remote.cpu(0)
    except Exception as e:
        return {"infra": "connect", "message": _short(e)}
    return _execute(lib, dev, spec, values, timing, tensor, remote=True)


def _probe(host: str, port: int, timeout: float = 3.0) -> str | None:
    """None if something accepts TCP connections at host:port, else why not (in at most ``timeout``)."""
    import socket

    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as e:
        return f"cannot reach the RPC tracker at {host}:{port} ({e.strerror or e})"


def check_tracker(tracker: dict[str, Any]) -> str | None:
    """None if the tracker answers and lists the key, else why not (checked before a run writes anything)."""
    from tvm import rpc

    problem = _probe(tracker["host"], int(tracker["port"]))
    if problem:
        return problem
    try:
        summary = rpc.connect_tracker(tracker["host"], int(tracker["port"])).summary()
    except Exception as e:
        return f"cannot reach the RPC tracker at {tracker['host']}:{tracker['port']} ({_short(e)})"
    keys = set(summary.get("queue_info", {}))
    if tracker["key"] not in keys:
        return (f"the RPC tracker at {tracker['host']}:{tracker['port']} has no device with key {tracker['key']!r} "
                f"(keys: {', '.join(sorted(keys)) or 'none'})")
    return None
