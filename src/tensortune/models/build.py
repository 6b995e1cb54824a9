"""The tuned end-to-end build: best schedules into a MetaSchedule database, then plain TVM Relax
compiles the model with them; output check against PyTorch and latency timing."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.core.caches import cold_preproc, last_level_cache_bytes
from tensortune.core.logs import native_log
from tensortune.core.threads import call_with_threads, runtime_threads, target_cores
from tensortune.measure.tvm_measurer import TimingPolicy
from tensortune.models.importer import ImportedModel
from tensortune.models.peers import Contender, Timing
from tensortune.models.tasks import fusion_passes


@dataclass(frozen=True)
class TunedSchedule:
    """A task's chosen schedule: the fused function, the template that made it and its knob values."""

    mod: Any
    template: str
    values: dict[str, Any]
    cost: float  # seconds, as measured
    task_key: str  # the task's key (its file in the task directory)


def to_database(schedules: list[TunedSchedule], target: dict[str, Any], database: Any = None) -> Any:
    """Commit each schedule's trace as a MetaSchedule tuning record (a MemoryDatabase by default)."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.arg_info import ArgInfo

    from tensortune.templates import get_template
    from tensortune.workloads.tir import TirWorkload

    db = database if database is not None else ms.database.MemoryDatabase()
    tgt = tvm.target.Target(target)
    for s in schedules:
        tmpl = get_template(s.template)
        sch = tmpl.schedule(TirWorkload(s.task_key), s.values)  # type: ignore[attr-defined]
        wl = db.commit_workload(s.mod)
        # a transferred schedule was never measured (cost inf): a large finite time keeps MetaSchedule's JSON valid
        db.commit_tuning_record(ms.database.TuningRecord(sch.trace, wl, [float(s.cost) if s.cost < 1e9 else 1e9], tgt,
                                                         ArgInfo.from_prim_func(s.mod["main"])))
    return db


def build_model(model: ImportedModel, target: dict[str, Any], database: Any = None,
                log_path: str | None = None) -> BuiltModel:
    """Compile the model with Relax; with a database, its schedules replace the matching fused
    functions (weights whose layout a schedule rewrote are transformed once, at build time); the
    rest is compiled as TVM lowers it by default. TVM's own log lines (LLVM codegen hints, ...) go
    to ``log_path`` when given."""
    import tvm
    from tvm import relax
    tgt = tvm.target.Target(target)
    mod = relax.transform.BindParams("main", model.params)(model.mod)

    @tvm.transform.module_pass(opt_level=3)
    def pipeline(m: Any, _ctx: Any) -> Any:
        m = tvm.transform.Sequential(fusion_passes(tgt))(m)
        if database is not None:
            m = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(m)
            m = relax.transform.SplitLayoutRewritePreproc()(m)
            m = relax.transform.FoldConstant()(m)
            m = relax.transform.DeadCodeElimination()(m)
        return tvm.transform.Sequential(_lower_passes(tgt))(m)

    with native_log(log_path), tgt, tvm.transform.PassContext(opt_level=3):
        if database is not None:
            with database:
                ex = relax.build(mod, target=tgt, relax_pipeline=pipeline)
        else:
            ex = relax.build(mod, target=tgt, relax_pipeline=pipeline)
    return BuiltModel(ex, dict(target))


def _lower_passes(target: Any) -> list[Any]:
    """Relax's lowering and finalisation for the target (as ``compile_relax``, with its fallback)."""
    from tvm import relax
    from tvm.relax import pipeline as rp

    try:
        return list(rp.dataflow_lower_passes(target)) + list(rp.finalize_passes(target))
    except (ValueError, AttributeError):
        t = relax.transform
        return [t.RewriteDataflowReshape(), t.ToNonDataflow(), t.RemovePurityChecking(), t.CallTIRRewrite(),
                t.StaticPlanBlockMemory(), t.LowerAllocTensor(), t.KillAfterLastUse(), t.LowerRuntimeBuiltin(),
                t.ComputePrimValue(), t.VMShapeLower(), t.AttachGlobalSymbol()]


COLD_RUNS = TimingPolicy.COLD_RUNS  # runs of a kernel alone per profiled repeat, as the tuner's cold protocol


@dataclass(frozen=True)
class KernelTime:
    """One compiled function as it runs inside the model."""

    symbol: str
    calls: float  # per inference
    median_s: float  # per call
    # the same compiled function called alone on copies of its arguments in the model, in the same rounds,
    # timed as it was tuned (cold caches but for its input); None where not timed so
    standalone_s: float | None = None


@dataclass
class BuiltModel:
    """A compiled model and the target it was compiled for. Everything that runs it goes through
    :func:`~tensortune.core.threads.call_with_threads` with the target's core count, so its parallel
    kernels get as many threads as they were tuned with (TVM's default on x86 is half the cores)."""

    executable: Any
    target: dict[str, Any]

    @property
    def threads(self) -> int:
        return target_cores(self.target)

    def _vm(self) -> Any:
        import tvm
        from tvm import relax

        return relax.VirtualMachine(self.executable, tvm.cpu())

    def run(self, x: np.ndarray) -> np.ndarray:
        return call_with_threads(self.threads, self._run, x)

    def _run(self, x: np.ndarray) -> np.ndarray:
        import tvm

        out = self._vm()["main"](tvm.runtime.tensor(x, tvm.cpu()))
        if isinstance(out, tvm.runtime.Tensor):
            return out.numpy()
        return out[0].numpy()

    def time(self, x: np.ndarray, repeat: int = 10, min_repeat_ms: int = 200) -> Timing:
        return call_with_threads(self.threads, self._time, x, repeat, min_repeat_ms)

    def _time(self, x: np.ndarray, repeat: int, min_repeat_ms: int) -> Timing:
        import tvm

        dev = tvm.cpu()
        vm = self._vm()
        inp = tvm.runtime.tensor(x, dev)
        vm["main"](inp)
        ev = vm.time_evaluator("main", dev, number=1, repeat=repeat, min_repeat_ms=min_repeat_ms)
        res = [float(v) * 1e3 for v in ev(inp).results]
        return Timing(float(np.median(res)), res)

    def contender(self, name: str, x: np.ndarray) -> Contender:
        """This build as a contender of the interleaved timing (``models.peers.time_interleaved``): each
        repeat is a TVM time evaluator of one repeat of at least the given milliseconds, run with the
        target's core count like every run of the build."""
        import tvm

        dev = tvm.cpu()
        vm = self._vm()
        inp = tvm.runtime.tensor(x, dev)

        def one(ms: int) -> float:
            ev = vm.time_evaluator("main", dev, number=1, repeat=1, min_repeat_ms=ms)
            return float(ev(inp).results[0]) * 1e3

        return Contender(name, lambda ms: call_with_threads(self.threads, one, ms))

    def profile(self, x: np.ndarray, runs: int = 5, standalone: bool = False) -> list[KernelTime]:
        """Wall time of every call the VM makes (``set_instrument``), over ``runs`` inferences after
        a warm-up: per compiled function, its calls per inference and its median time per call (and,
        with ``standalone``, its time called alone; see :meth:`profiler`)."""
        contender, collect = self.profiler("profile", x, standalone=standalone)
        contender.repeat_ms(0)  # the warm-up
        for _ in range(runs):
            contender.repeat_ms(0)  # one inference each
        return collect()

    def profiler(self, name: str, x: np.ndarray, standalone: bool = False,
                 ) -> tuple[Contender, Callable[[], list[KernelTime]]]:
        """A contender of the interleaved timing whose repeats are instrumented inferences (each call the
        VM makes timed), and what it collected: per compiled function, its calls per inference and its
        median time per call. Its first repeat is a warm-up and is not recorded. Run beside the timed
        contenders, the profile sees the same phases of the machine as the latency it is set against (a
        profile of 5 inferences taken alone once summed to 38 ms against 27 ms timed a minute later).

        With ``standalone``, each repeat also calls every compiled function of the model alone, on copies
        of the arguments of its first recorded call, timed as the tuner measured it (one run per repeat,
        every argument but the input evicted from the CPU caches unless they exceed the last-level cache,
        ``core.caches``): the kernel's time on this machine now, against which its in-model time tells the
        build's cost from the machine's phase (a tuned time measured minutes or days ago cannot)."""
        import tvm

        dev = tvm.cpu()
        vm = self._vm()
        inp = tvm.runtime.tensor(x, dev)
        lib = self._kernel_library() if standalone else None
        llc = last_level_cache_bytes()  # the tuner's cold protocol flushes no argument set larger than it
        times: dict[str, list[float]] = {}
        alone: dict[str, list[float]] = {}
        captured: dict[str, Any] = {}  # symbol -> (its time evaluator, copies of its arguments)
        stack: list[float] = []
        runs = [-1]  # inferences recorded; -1 until the warm-up ran

        def capture(symbol: str, args: tuple[Any, ...]) -> None:
            if lib is None or symbol in captured or not lib.implements_function(symbol, True):
                return
            if not args or not all(isinstance(a, tvm.runtime.Tensor) for a in args):
                captured[symbol] = None  # a call with other arguments (shapes, scalars): not timed alone
                return
            ev = lib.time_evaluator(symbol, dev, number=1, repeat=COLD_RUNS, min_repeat_ms=0,
                                    f_preproc=cold_preproc(list(args), llc))
            captured[symbol] = (ev, [tvm.runtime.tensor(a.numpy(), dev) for a in args])

        def instrument(_func: Any, symbol: str, before: bool, _ret: Any, *args: Any) -> int:
            if before:
                if runs[0] == 0:
                    capture(str(symbol), args)  # before the clock starts: the copy is not the call's time
                stack.append(time.perf_counter())
            else:
                times.setdefault(str(symbol), []).append(time.perf_counter() - stack.pop())
            return 0

        def one(ms: int) -> float:
            if runs[0] < 0:
                vm["main"](inp)
                runs[0] = 0
                return 0.0
            vm.set_instrument(instrument)
            n, t0 = 0, time.perf_counter()
            try:
                while n == 0 or (time.perf_counter() - t0) * 1e3 < ms:
                    vm["main"](inp)
                    n += 1
            finally:
                vm.set_instrument(None)
            runs[0] += n
            per_inference = (time.perf_counter() - t0) * 1e3 / n
            for symbol, c in captured.items():
                if c is not None:
                    alone.setdefault(symbol, []).extend(float(v) for v in c[0](*c[1]).results)
            return per_inference

        def collect() -> list[KernelTime]:
            k = max(runs[0], 1)
            return [KernelTime(s, len(v) / k, float(np.median(v)),
                               float(np.median(alone[s])) if s in alone else None) for s, v in times.items()]

        return Contender(name, lambda ms: call_with_threads(self.threads, one, ms)), collect

    def _modules(self) -> list[Any]:
        """The VM executable's module and the modules it imports (the compiled functions)."""
        return [self.executable.mod, *self.executable.mod.imports]

    def _kernel_library(self) -> Any:
        """The module of the model's compiled functions (the VM executable imports it)."""
        mods = self._modules()
        return next((m for m in mods[1:] if m.kind in ("llvm", "library", "static_library")), mods[-1])

    def parallel_functions(self) -> set[str]:
        """Compiled functions whose machine code launches a parallel region (read from the library's
        LLVM IR, so a schedule whose parallel loop was lost on the way into the model shows up here)."""
        import re

        found: set[str] = set()
        for m in self._modules():
            try:
                ir = m.inspect_source("ll")
            except Exception:
                continue
            for body in ir.split("\ndefine ")[1:]:
                name = re.match(r"[^@]*@([\w.]+)\(", body)
                if name and "TVMBackendParallelLaunch" in body.split("\n}\n", 1)[0]:
                    found.add(name.group(1).removesuffix("_compute_").removeprefix("__tvm_ffi_"))
        return found

    def threads_inside(self, x: np.ndarray) -> int:
        """The TVM pool size the model's kernels see while it runs (read from inside a VM call)."""
        seen: list[int] = []

        def probe() -> int:
            import tvm

            vm = self._vm()

            def instrument(_func: Any, _symbol: str, before: bool, *_rest: Any) -> int:
                if before and not seen:
                    seen.append(runtime_threads())
                return 0

            vm.set_instrument(instrument)
            vm["main"](tvm.runtime.tensor(x, tvm.cpu()))
            return seen[0]

        return call_with_threads(self.threads, probe)


def max_error(out: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """(max abs error, max abs of the reference)."""
    return float(np.max(np.abs(out.astype(np.float64) - ref))), float(np.max(np.abs(ref)))
