"""TVM measurers: parallel isolated builds, then isolated runs locally or through an RPC tracker.

A local measurer holds the machine's measure lock (``core/leases.py``) while it builds and times a
batch, so two tuning processes on one machine take turns instead of timing on the same cores.
Builders and runners run under a memory limit (``memory_limit_mb``; default: half of this machine's
memory, at least 2 GiB), so a kernel or compile that blows up is stored as ``OUT_OF_MEMORY`` and the
run goes on. Over RPC, a failure to reach the tracker or a device is not the config's fault: the
config is tried again on another device, and when none can take it the measurer raises
:class:`DeviceError` without a result for it, so nothing junk is stored and the run can resume.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass

from tensortune.core.leases import measure_lock
from tensortune.core.threads import runner_env
from tensortune.core.values import DeviceError, ErrorKind, MeasureInput, MeasureResult
from tensortune.measure.workers import CallOutcome, Worker, WorkerPool

_JOBS = "tensortune.measure.tvm_jobs"


def check_options(build_workers: int, build_timeout: float, run_timeout: float, timing: TimingPolicy,
                  rpc_parallel: int = 1, memory_limit_mb: int | None = None) -> None:
    """ValueError for options that would make every measurement fail or never finish."""
    if build_workers < 1:
        raise ValueError(f"--build-workers must be at least 1, not {build_workers}")
    if rpc_parallel < 1:
        raise ValueError(f"--rpc-parallel must be at least 1, not {rpc_parallel}")
    if not build_timeout > 0 or not run_timeout > 0:
        raise ValueError(f"--build-timeout and --run-timeout must be positive seconds (got {build_timeout}, {run_timeout})")
    if timing.repeat < 1 or timing.min_repeat_ms < 0:
        raise ValueError(f"--repeat must be at least 1 and --min-repeat-ms at least 0 (got {timing.repeat}, "
                         f"{timing.min_repeat_ms})")
    # every repeat lasts at least min_repeat_ms, plus loading and the output check: leave half the timeout
    if timing.repeat * timing.min_repeat_ms / 1000 > run_timeout / 2:
        raise ValueError(f"--repeat {timing.repeat} x --min-repeat-ms {timing.min_repeat_ms} takes "
                         f"{timing.repeat * timing.min_repeat_ms / 1000:g} s of timing per config, more than half of "
                         f"--run-timeout {run_timeout:g} s: every config would time out")
    if memory_limit_mb is not None and memory_limit_mb < 1536:
        # a worker with TVM, LLVM and NumPy loaded already maps about 1 GB of address space
        raise ValueError(f"--memory-limit must be at least 1536 MB (TVM alone maps about 1 GB), not {memory_limit_mb}")


# Kernels one local runner process runs before it is replaced by a fresh one. While measuring a
# ground-truth table (x86-64-v2 code on 2 threads, a 12 GB address-space limit per worker on a 24 GB VM)
# nearly every kernel after the ~1,200th failed to load ("failed to map segment from shared object",
# std::bad_alloc) and 140 valid configs were stored as failures; the other 7 tables of that stop did not.
# The cause is not pinned down (a tiny kernel loaded 300 times grows a process by 6 MB only); a fresh
# runner every N kernels bounds whatever grows per kernel, for about 4 s (loading TVM) per N kernels.
RUNNER_RECYCLE_KERNELS = 256


@dataclass(frozen=True)
class TimingPolicy:
    """Each repeat runs the kernel as many times as it takes to last ``min_repeat_ms``; the cost is
    the median of ``repeat`` repeats, all of which are kept.

    ``cold``: as a kernel runs inside a whole model, whose weights (44 MB for ResNet-18) do not stay in
    the caches from one call of a layer to the next: every argument but the input is flushed from the
    CPU caches before each run (TVM's ``cache_flush_cpu_non_first_arg``, AutoTVM's
    ``enable_cpu_cache_flush``), each repeat is one run, and there are ``COLD_RUNS`` x ``repeat`` of
    them. Warm timing ranks configs by how fast they run on cached weights, which is not how they run in
    the model: on ResNet-18's last stage the warm-best config ran at 876 us cold, another at 645 us.
    Arguments larger than this machine's last-level cache are not flushed (no run keeps them cached for
    the next, and the flush of VGG-16's 411 MB fc6 weights took a second per run: ``core.caches``)."""

    repeat: int = 5
    min_repeat_ms: int = 40
    cold: bool = False

    COLD_RUNS = 4

    def as_dict(self) -> dict[str, object]:
        if self.cold:
            return {"repeat": self.repeat * self.COLD_RUNS, "min_repeat_ms": 0, "cold": True}
        return {"repeat": self.repeat, "min_repeat_ms": self.min_repeat_ms}


@dataclass(frozen=True)
class RpcTracker:
    host: str
    port: int
    key: str
    session_timeout: int = 60

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "port": self.port, "key": self.key, "session_timeout": self.session_timeout}


_OOM_SIGNS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory", "Out of memory",
              "failed to allocate", "Failed to allocate")


def sweep_stale_build_dirs() -> int:
    """Remove the build directories of measurers whose process is gone (a SIGKILL skips every cleanup);
    the directory names carry the owner's pid. Returns how many were removed."""
    import glob

    n = 0
    for d in glob.glob(os.path.join(tempfile.gettempdir(), "tensortune-build-*-*")):
        try:
            pid = int(os.path.basename(d).split("-")[2])
            os.kill(pid, 0)
        except ValueError:
            continue
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
            n += 1
        except PermissionError:  # another user's live process
            continue
    return n


def default_memory_limit_mb() -> int:
    """Half of this machine's memory, at least 2 GiB: room for LLVM and a large kernel, never the
    whole machine."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError):
        return 4096
    return max(2048, total // 2)


def is_oom(message: str) -> bool:
    return any(s in message for s in _OOM_SIGNS)


def _failure(o: CallOutcome, timeout_kind: ErrorKind, crash_kind: ErrorKind, **kw: float) -> MeasureResult:
    if o.status == "timeout":
        return MeasureResult.failure(timeout_kind, o.message, **kw)
    if o.status == "memory" or is_oom(o.message):
        return MeasureResult.failure(ErrorKind.OUT_OF_MEMORY, o.message, **kw)
    if o.status == "died":
        return MeasureResult.failure(crash_kind, o.message, **kw)
    return MeasureResult.failure(ErrorKind.UNKNOWN, o.message, **kw)


class TvmMeasurer:
    """Builds a batch in ``build_workers`` parallel processes (each with ``build_timeout``), waits for
    all builds, then runs the kernels one at a time in a separate runner process (``run_timeout``), so
    builds and runs never overlap. With ``rpc`` set, kernels run on devices leased from a TVM RPC
    tracker instead (``rpc_parallel`` at a time)."""

    RPC_ATTEMPTS = 3  # tries of one config over RPC before the device counts as down

    def __init__(self, build_workers: int = 2, build_timeout: float = 60.0, run_timeout: float = 30.0,
                 timing: TimingPolicy | None = None, rpc: RpcTracker | None = None, rpc_parallel: int = 1,
                 run_threads: int | None = None, memory_limit_mb: int | None = None,
                 machine_lock: bool = True) -> None:
        check_options(build_workers, build_timeout, run_timeout, timing or TimingPolicy(), rpc_parallel, memory_limit_mb)
        self.timing = timing or TimingPolicy()
        self.build_timeout = build_timeout
        self.run_timeout = run_timeout
        self.rpc = rpc
        self.memory_limit_mb = memory_limit_mb or default_memory_limit_mb()
        mem = self.memory_limit_mb * 1024 * 1024
        self._threads = int(run_threads or os.cpu_count() or 1)
        self._builders = WorkerPool(build_workers, env={"TVM_NUM_THREADS": "1"}, memory_limit_bytes=mem)
        self._runners = WorkerPool(rpc_parallel if rpc else 1, env=runner_env(self._threads),
                                   memory_limit_bytes=mem, cpu_factor=float(self._threads))
        # kernels on a remote device do not share this machine's cores
        self._lock = measure_lock() if machine_lock and rpc is None else None
        sweep_stale_build_dirs()
        self._dir = tempfile.mkdtemp(prefix=f"tensortune-build-{os.getpid()}-")
        self._counter = 0
        self._kernels_run = 0  # by the current local runner process
        self._runnable: set[str] = set()  # target keys checked against this CPU's instruction sets

    def protocol(self) -> dict[str, object]:
        """What decides this measurer's figures (see ``core.values.measurer_protocol``)."""
        from tensortune.core.targets import device_name

        machine = f"rpc:{self.rpc.key}" if self.rpc else device_name()
        cache = {"cache": "cold"} if self.timing.cold else {}  # warm runs keep their earlier fingerprint
        return {"measurer": "tvm", "repeat": self.timing.repeat, "min_repeat_ms": self.timing.min_repeat_ms,
                "build_timeout": self.build_timeout, "run_timeout": self.run_timeout, "threads": self._threads,
                "device": machine, **cache}

    # ------------------------------------------------------------------
    def _build(self, inputs: list[MeasureInput]) -> list[dict | MeasureResult]:
        args = []
        for inp in inputs:
            self._counter += 1
            path = os.path.join(self._dir, f"k{self._counter}.so")
            args.append((inp.task.spec(), inp.task.space.values(inp.config), path))
        outs = self._builders.map(f"{_JOBS}:build", args, self.build_timeout)
        res: list[dict | MeasureResult] = []
        for o in outs:
            if o.status == "ok" and "path" in o.value:
                res.append(o.value)
            elif o.status == "ok":
                kind = ErrorKind(o.value["error"])
                if is_oom(o.value["message"]):
                    kind = ErrorKind.OUT_OF_MEMORY
                res.append(MeasureResult.failure(kind, o.value["message"], build_seconds=o.value.get("build_s", 0.0)))
            elif o.status == "exception":  # the build job reports template and compiler errors itself
                res.append(MeasureResult.failure(ErrorKind.UNKNOWN, o.message))
            elif o.status == "memory":
                res.append(MeasureResult.failure(ErrorKind.OUT_OF_MEMORY, o.message))
            else:
                res.append(_failure(o, ErrorKind.BUILD_TIMEOUT, ErrorKind.COMPILE_HOST, build_seconds=self.build_timeout))
        return res

    def _run_args(self, inp: MeasureInput, path: str) -> tuple:
        base = (path, inp.task.spec(), inp.task.space.values(inp.config), self.timing.as_dict())
        return base + (self.rpc.as_dict(),) if self.rpc else base

    def _to_result(self, o: CallOutcome, build_s: float, run_wall: float | None = None) -> MeasureResult:
        if o.status == "ok" and "costs" in o.value:
            # run_wall_s: wall time of the whole run step (load, warm-up, repeats, output check); with the
            # build time it is what one measurement costs, which replayed benchmarks charge per trial
            extra = {"run_wall_s": round(run_wall, 6)} if run_wall is not None else {}
            return MeasureResult(costs=tuple(o.value["costs"]), build_seconds=build_s,
                                 run_seconds=sum(o.value["costs"]), extra=extra)
        if o.status == "ok":
            kind = ErrorKind(o.value["error"])
            if kind == ErrorKind.RUNTIME and is_oom(o.value["message"]):
                kind = ErrorKind.OUT_OF_MEMORY
            return MeasureResult.failure(kind, o.value["message"], build_seconds=build_s)
        if o.status == "exception" and not is_oom(o.message):
            return MeasureResult.failure(ErrorKind.RUNTIME, o.message, build_seconds=build_s)
        return _failure(o, ErrorKind.RUN_TIMEOUT, ErrorKind.RUNTIME, build_seconds=build_s)

    def _prepare(self, worker: Worker, spec: dict) -> CallOutcome:
        return worker.call(f"{_JOBS}:prepare", (spec,), timeout=900.0)

    def measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]:
        if not inputs:
            return []
        if self.rpc is None:
            self._check_runnable(inputs)
        if self._lock is None:
            return self._measure(inputs)
        self._lock.acquire(wait=True)  # another tuning process on this machine may be timing: wait our turn
        try:
            return self._measure(inputs)
        finally:
            self._lock.release()

    def _check_runnable(self, inputs: list[MeasureInput]) -> None:
        """DeviceError (nothing measured, nothing stored) for a target whose code would die here with an
        illegal instruction: every config would fail (stop 58: a VM hiding AVX-512 from a Zen 4, where the
        target then named ``znver4`` alone, stored 128 SIGILL failures of a ResNet-18 run and went on)."""
        from tensortune.core.targets import target_key, target_missing_features

        for inp in inputs:
            key = target_key(inp.task.target)
            if key in self._runnable:
                continue
            missing = target_missing_features(inp.task.target)
            if missing:
                raise DeviceError(f"this CPU cannot run code for the target {key}: it lacks {', '.join(missing)}, "
                                  "so every kernel would die with an illegal instruction. Tune for this machine's "
                                  "default target (--target llvm), which turns off what it lacks, or measure on "
                                  "a machine that has them (RPC)")
            self._runnable.add(key)

    def _measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]:
        built = self._build(inputs)
        results: list[MeasureResult | None] = [r if isinstance(r, MeasureResult) else None for r in built]
        todo = [i for i, r in enumerate(results) if r is None]
        try:
            if self.rpc is not None:
                self._run_rpc(inputs, built, results, todo)
            else:
                self._run_local(inputs, built, results, todo)
        finally:
            self._remove(built)
        return [r for r in results if r is not None]

    def _run_local(self, inputs: list[MeasureInput], built: list[dict | MeasureResult],
                   results: list[MeasureResult | None], todo: list[int]) -> None:
        worker = self._runners.workers[0]
        for i in todo:
            b = built[i]
            assert isinstance(b, dict)
            if self._kernels_run >= RUNNER_RECYCLE_KERNELS:
                worker.close()  # a fresh runner (and a fresh address space) from the next call on
                self._kernels_run = 0
            self._kernels_run += 1
            prep = self._prepare(worker, inputs[i].task.spec())
            if prep.status != "ok":
                kind = ErrorKind.OUT_OF_MEMORY if prep.status == "memory" or is_oom(prep.message) else ErrorKind.UNKNOWN
                results[i] = MeasureResult.failure(kind, f"reference preparation failed: {prep.message}")
                continue
            t0 = time.perf_counter()
            o = worker.call(f"{_JOBS}:run_local", self._run_args(inputs[i], b["path"]), self.run_timeout)
            results[i] = self._to_result(o, b["build_s"], time.perf_counter() - t0)

    @staticmethod
    def _remove(built: list[dict | MeasureResult]) -> None:
        for b in built:
            if isinstance(b, dict):
                for suffix in ("", ".shapes.json"):
                    try:
                        os.remove(b["path"] + suffix)
                    except OSError:
                        pass

    def _run_rpc(self, inputs: list[MeasureInput], built: list[dict | MeasureResult],
                 results: list[MeasureResult | None], todo: list[int]) -> None:
        """Run over RPC; a config whose device could not be reached, or whose server died under it, is
        tried again (on whichever device the tracker gives next). A server that dies under the same
        config every time is that config's crash (stored as RUNTIME); a tracker or device that stays
        unreachable raises DeviceError, with nothing stored for the configs it left."""
        fn = f"{_JOBS}:run_rpc"
        attempts = dict.fromkeys(todo, 0)
        while todo:
            outs = self._runners.map(fn, [self._run_args(inputs[i], built[i]["path"]) for i in todo],  # type: ignore[index]
                                     self.run_timeout)
            again = []
            for i, o in zip(todo, outs, strict=True):
                infra = o.status == "ok" and "infra" in o.value
                if not infra:
                    results[i] = self._to_result(o, built[i]["build_s"])  # type: ignore[index]
                    continue
                attempts[i] += 1
                if o.value["infra"] == "session" and attempts[i] >= 2:
                    # the server died twice while running this config: the kernel takes servers down
                    results[i] = MeasureResult.failure(ErrorKind.RUNTIME, "RPC server died twice while running "
                                                       f"this config: {o.value['message']}",
                                                       build_seconds=built[i]["build_s"])  # type: ignore[index]
                elif attempts[i] >= self.RPC_ATTEMPTS:
                    raise DeviceError(f"RPC tracker {self.rpc.host}:{self.rpc.port} (key {self.rpc.key!r}): "  # type: ignore[union-attr]
                                      f"{o.value['message']}; {sum(r is not None for r in results)} of "
                                      f"{len(results)} configs of the batch measured, the rest not stored")
                else:
                    again.append(i)
            if again:
                time.sleep(1.0)
            todo = again

    def close(self) -> None:
        self._builders.close()
        self._runners.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> TvmMeasurer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


