"""Our explorers inside MetaSchedule: a ``PySearchStrategy`` that tunes MetaSchedule's own design
spaces, with every decision of the sketch traces as a knob (see ``templates/tir_schedules.py``).

A TVM user keeps their flow and passes ``strategy=TensortuneStrategy("autotvm")`` to
``ms.tune_tir`` / ``ms.relax_integration.tune_relax`` / ``ms.tune.tune_tasks``: MetaSchedule's
builder, runner, database and task scheduler stay as they are; only the choice of candidates is ours
(any recipe: autotvm, chameleon, arco, ml2tuner's model-based cousins, random).

It resumes: a rerun on the same work directory (MetaSchedule's database) reads the task's measured
schedules back as configs, tells them to the recipe and never proposes them again."""

from __future__ import annotations

from typing import Any


def detach_foreign_meta_schedule_log_handlers() -> None:
    """Detach handlers that MetaSchedule did not create from its logger.

    ``tune_tir`` / ``tune_relax`` rebuild logging with ``dictConfig`` from the names of the handlers
    already on ``tvm.s_tir.meta_schedule`` and crash on any it did not define (an unnamed one gives
    ``'NoneType' object has no attribute 'format'``). After a first MetaSchedule run makes that
    logger non-propagating, pytest's log capture (or an application) attaches such handlers.
    ``dictConfig`` removes every existing handler of the logger anyway, so nothing is lost."""
    import logging

    ms_logger = logging.getLogger("tvm.s_tir.meta_schedule")
    for handler in list(ms_logger.handlers):
        if not (handler.get_name() or "").startswith("tvm.s_tir.meta_schedule"):
            ms_logger.removeHandler(handler)


def TensortuneStrategy(recipe: str = "autotvm", seed: int = 0, **options: Any) -> Any:  # noqa: N802
    """A MetaSchedule search strategy driven by a tensortune recipe."""
    detach_foreign_meta_schedule_log_handlers()
    import numpy as np
    from tvm.ir.utils import derived_object
    from tvm.s_tir import analysis
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.arg_info import ArgInfo
    from tvm.s_tir.schedule import Schedule, Trace

    from tensortune.templates.tir_schedules import config_of_trace, sketch_knobs, sketch_space, trace_with
    from tensortune.tuners import recipes
    from tensortune.tuners.guard import MeasureGuard

    recipes.create(recipe, sketch_space([{"knobs": [{"kind": "x", "options": [0, 1]}]}]), seed)  # bad name: fail now

    @derived_object
    class _Strategy(ms.search_strategy.PySearchStrategy):
        def __init__(self) -> None:
            self.recipe, self.seed, self.options = recipe, seed, dict(options)
            self.context: Any = None
            self.strategy: Any = None
            self.history: list[float] = []

        def _initialize_with_tune_context(self, context: Any) -> None:
            self.context = context

        def pre_tuning(self, max_trials: int, num_trials_per_iter: int, design_spaces: list[Any],
                       database: Any = None, cost_model: Any = None) -> None:
            self.mod = self.context.mod
            self.sketches = sketch_knobs(self.mod, list(design_spaces))
            self.space = sketch_space(self.sketches)
            opts = {"plan_size": num_trials_per_iter, **self.options}
            self.strategy = recipes.create(self.recipe, self.space, self.seed, **opts)
            self.max_trials, self.per_iter = max_trials, num_trials_per_iter
            self.trials = 0
            self.guard = MeasureGuard(self.space)  # the loop's guarantee: never twice, never invalid
            self.pending: list[Any] = []
            self.flops = float(analysis.estimate_tir_flops(self.mod)) or 1.0
            self.postprocs = list(self.context.space_generator.postprocs)
            self.resumed = self._resume(database)

        def _resume(self, database: Any) -> int:
            """Tell the recipe what the database already holds for this task; those configs are never
            proposed again."""
            if database is None or not database.has_workload(self.mod):
                return 0
            cfgs, ys = [], []
            for rec in database.get_top_k(database.commit_workload(self.mod), 1 << 30):
                cfg = config_of_trace(self.sketches, self.space, rec.trace)
                if cfg is None or self.guard.seen(cfg):
                    continue
                secs = [float(x) for x in rec.run_secs] if rec.run_secs else []
                ok = secs and all(x < 1e9 for x in secs)
                cfgs.append(cfg)
                ys.append(self.flops / float(np.mean(secs)) if ok else 0.0)
            if cfgs:
                self.guard.mark(cfgs)
                self.strategy.tell(cfgs, ys)
                self.strategy.restored(len(cfgs))
            return len(cfgs)

        def post_tuning(self) -> None:
            self.strategy = None

        def _schedule(self, cfg: Any) -> Any:
            sch = Schedule(self.mod)
            try:
                Trace.apply_json_to_schedule(trace_with(self.sketches, self.space.values(cfg)), sch)
                sch.enter_postproc()
                for p in self.postprocs:
                    if not p.apply(sch):
                        return None
            except Exception:
                return None
            return sch

        def generate_measure_candidates(self) -> list[Any] | None:
            left = self.max_trials - self.trials
            if left <= 0:
                return None
            want = min(self.per_iter, left)
            out, cfgs, failed = [], [], []
            for _ in range(4):  # configs MetaSchedule's post-processors reject are told as failures
                for c in self.guard.admit(self.strategy.ask(want - len(out))):
                    sch = self._schedule(c)
                    if sch is None:
                        failed.append(c)
                        continue
                    cfgs.append(c)
                    out.append(ms.search_strategy.MeasureCandidate(sch, ArgInfo.from_entry_func(sch.mod, remove_preproc=True)))
                if len(out) >= want or self.guard.exhausted:
                    break
            if failed:
                self.strategy.tell(failed, [0.0] * len(failed))
            if not out:
                return None
            self.pending = cfgs
            return out

        def notify_runner_results(self, measure_candidates: list[Any], results: list[Any]) -> None:
            ys = []
            for r in results:
                secs = [float(x) for x in r.run_secs] if r.run_secs is not None and r.error_msg is None else []
                ys.append(self.flops / float(np.mean(secs)) if secs else 0.0)
            self.trials += len(results)
            self.history.extend(ys)
            self.strategy.tell(self.pending[:len(ys)], ys)
            self.pending = []

        def clone(self) -> Any:
            return TensortuneStrategy(self.recipe, self.seed, **self.options)

    return _Strategy()
