"""TVM measurers: parallel isolated builds, then isolated runs locally or through an RPC tracker."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass

from tensortune.core.values import ErrorKind, MeasureInput, MeasureResult
from tensortune.measure.workers import CallOutcome, Worker, WorkerPool

_JOBS = "tensortune.measure.tvm_jobs"


@dataclass(frozen=True)
class TimingPolicy:
    """Each repeat runs the kernel as many times as it takes to last ``min_repeat_ms``; the cost is
    the median of ``repeat`` repeats, all of which are kept."""

    repeat: int = 5
    min_repeat_ms: int = 40

    def as_dict(self) -> dict[str, int]:
        return {"repeat": self.repeat, "min_repeat_ms": self.min_repeat_ms}


@dataclass(frozen=True)
class RpcTracker:
    host: str
    port: int
    key: str
    session_timeout: int = 60

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "port": self.port, "key": self.key, "session_timeout": self.session_timeout}


def _failure(o: CallOutcome, timeout_kind: ErrorKind, crash_kind: ErrorKind, **kw: float) -> MeasureResult:
    if o.status == "timeout":
        return MeasureResult.failure(timeout_kind, o.message, **kw)
    if o.status == "died":
        return MeasureResult.failure(crash_kind, o.message, **kw)
    return MeasureResult.failure(ErrorKind.UNKNOWN, o.message, **kw)


class TvmMeasurer:
    """Builds a batch in ``build_workers`` parallel processes (each with ``build_timeout``), waits for
    all builds, then runs the kernels one at a time in a separate runner process (``run_timeout``), so
    builds and runs never overlap. With ``rpc`` set, kernels run on devices leased from a TVM RPC
    tracker instead (``rpc_parallel`` at a time)."""

    def __init__(self, build_workers: int = 2, build_timeout: float = 60.0, run_timeout: float = 30.0,
                 timing: TimingPolicy | None = None, rpc: RpcTracker | None = None, rpc_parallel: int = 1,
                 run_threads: int | None = None, memory_limit_mb: int | None = None) -> None:
        self.timing = timing or TimingPolicy()
        self.build_timeout = build_timeout
        self.run_timeout = run_timeout
        self.rpc = rpc
        self._builders = WorkerPool(build_workers, env={"TVM_NUM_THREADS": "1"})
        threads = str(run_threads or os.cpu_count() or 1)
        mem = memory_limit_mb * 1024 * 1024 if memory_limit_mb else None
        self._runners = WorkerPool(rpc_parallel if rpc else 1, env={"TVM_NUM_THREADS": threads}, memory_limit_bytes=mem)
        self._dir = tempfile.mkdtemp(prefix="tensortune-build-")
        self._counter = 0

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
                res.append(MeasureResult.failure(ErrorKind(o.value["error"]), o.value["message"],
                                                 build_seconds=o.value.get("build_s", 0.0)))
            elif o.status == "exception":  # the build job reports template and compiler errors itself
                res.append(MeasureResult.failure(ErrorKind.UNKNOWN, o.message))
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
            return MeasureResult.failure(ErrorKind(o.value["error"]), o.value["message"], build_seconds=build_s)
        if o.status == "exception":
            return MeasureResult.failure(ErrorKind.RUNTIME, o.message, build_seconds=build_s)
        return _failure(o, ErrorKind.RUN_TIMEOUT, ErrorKind.RUNTIME, build_seconds=build_s)

    def _prepare(self, worker: Worker, spec: dict) -> CallOutcome:
        return worker.call(f"{_JOBS}:prepare", (spec,), timeout=900.0)

    def measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]:
        if not inputs:
            return []
        built = self._build(inputs)
        results: list[MeasureResult | None] = [r if isinstance(r, MeasureResult) else None for r in built]
        todo = [i for i, r in enumerate(results) if r is None]
        fn = f"{_JOBS}:run_rpc" if self.rpc else f"{_JOBS}:run_local"
        if self.rpc is None:
            worker = self._runners.workers[0]
            for i in todo:
                b = built[i]
                assert isinstance(b, dict)
                prep = self._prepare(worker, inputs[i].task.spec())
                if prep.status != "ok":
                    results[i] = MeasureResult.failure(ErrorKind.UNKNOWN, f"reference preparation failed: {prep.message}")
                    continue
                t0 = time.perf_counter()
                o = worker.call(fn, self._run_args(inputs[i], b["path"]), self.run_timeout)
                results[i] = self._to_result(o, b["build_s"], time.perf_counter() - t0)
        else:
            outs = self._runners.map(fn, [self._run_args(inputs[i], built[i]["path"]) for i in todo],  # type: ignore[index]
                                     self.run_timeout)
            for i, o in zip(todo, outs, strict=True):
                results[i] = self._to_result(o, built[i]["build_s"])  # type: ignore[index]
        for b in built:
            if isinstance(b, dict):
                for suffix in ("", ".shapes.json"):
                    try:
                        os.remove(b["path"] + suffix)
                    except OSError:
                        pass
        return [r for r in results if r is not None]

    def close(self) -> None:
        self._builders.close()
        self._runners.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> TvmMeasurer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


