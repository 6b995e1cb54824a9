"""Commands on operators and layers: ``tune`` (a layer, a conv, a dense, a model's conv tasks;
a whole model is handed to ``model_cmds``) and ``compare`` (several tuners and seeds on one task)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tensortune.cli.common import (
    UserError,
    check_confirm,
    check_tuner,
    console,
    corpus_for,
    ints,
    measurer_for,
    open_storage,
    parse_target_arg,
)
from tensortune.cli.model_cmds import cmd_tune_model
from tensortune.cli.records_cmds import print_best
from tensortune.core.values import Task
from tensortune.templates import make_task

if TYPE_CHECKING:
    from tensortune.tuners.loop import TuneSummary


def _parse_conv(text: str) -> Any:
    """``C,H,W,K,kernel,stride,pad[,dilation[,batch]]`` (square H/W/kernel)."""
    from tensortune.workloads import Conv2d

    v = ints(text, "--conv")
    if len(v) not in (7, 8, 9):
        raise UserError(f"--conv takes C,H,W,K,kernel,stride,pad[,dilation[,batch]], got {len(v)} numbers")
    c, h, w, k, kern, stride, pad = v[:7]
    dil = v[7] if len(v) > 7 else 1
    batch = v[8] if len(v) > 8 else 1
    return Conv2d.make(batch, c, h, w, k, kern, stride, pad, dil)


def _parse_dense(text: str) -> Any:
    from tensortune.workloads import Dense

    v = ints(text, "--dense")
    if len(v) != 3:
        raise UserError(f"--dense takes M,K,N, got {len(v)} numbers")
    return Dense.make(*v)


def _tasks(args: argparse.Namespace, target: dict) -> list[Task]:
    given = [x for x in (args.model, args.layer, args.conv, args.dense) if x]
    if len(given) != 1:
        raise UserError("give exactly one of --model, --layer, --conv, --dense")
    codesign = getattr(args, "codesign", "none")
    if codesign != "none" and target["kind"] != "vta-sim":
        raise UserError("--codesign needs --target vta-sim (hardware knobs exist only on the accelerator model)")
    if codesign == "model":
        from tensortune.workloads import ModelConvs

        if not args.model or args.tasks:
            raise UserError("--codesign model tunes a whole model: give --model NAME and no --tasks")
        try:
            wl = ModelConvs.of(args.model)
            return [make_task(wl, args.template or "model_codesign.vta-sim", target, f"{args.model}:all")]
        except ValueError as e:
            raise UserError(str(e)) from None
    if args.tasks and not args.model:
        raise UserError("--tasks selects tasks of --model; it does nothing without it")
    try:
        return _make_tasks(args, target, codesign)
    except ValueError as e:  # a shape, layer name or template the library refuses
        raise UserError(str(e)) from None


def _make_tasks(args: argparse.Namespace, target: dict, codesign: str) -> list[Task]:
    from tensortune.templates import default_template
    from tensortune.workloads import model_tasks, resolve_layer

    wls: list[tuple[str, Any]] = []
    if args.model:
        tasks = ints(args.tasks, "--tasks") if args.tasks else None
        wls = model_tasks(args.model, tasks)
    elif args.layer:
        wls = [resolve_layer(n) for n in args.layer.split(",")]
    elif args.conv:
        w = _parse_conv(args.conv)
        wls = [(w.key, w)]
    else:
        w = _parse_dense(args.dense)
        wls = [(w.key, w)]
    out = []
    for name, wl in wls:
        tmpl = args.template or ("conv2d_codesign.vta-sim" if codesign == "layer" else default_template(wl.op, target["kind"]))
        out.append(make_task(wl, tmpl, target, name))
    return out


def _budget(args: argparse.Namespace) -> Any:
    from tensortune.tuners import Budget

    if args.trials is not None and args.trials < 1:
        raise UserError(f"--trials must be at least 1, got {args.trials}")
    if args.time_limit is not None and args.time_limit <= 0:
        raise UserError(f"--time-limit must be positive, got {args.time_limit}")
    if args.early_stopping is not None and args.early_stopping < 1:
        raise UserError(f"--early-stopping must be at least 1, got {args.early_stopping}")
    if args.batch_size < 1 or (args.plan_size is not None and args.plan_size < 1):
        raise UserError(f"--batch-size and --plan-size must be at least 1 (got {args.batch_size}, {args.plan_size})")
    return Budget(trials=args.trials, seconds=args.time_limit, early_stopping=args.early_stopping)


def _glimpse(args: argparse.Namespace, task: Any, target: dict) -> Any:
    """The task's Glimpse parts (first plan, validity vote, acquisition function) from ``--glimpse FILE``,
    or for ``--tuner glimpse`` from the family's default file; None when neither asks for them."""
    from tensortune.transfer.glimpse import GlimpseModels, default_path
    from tensortune.tuners.recipes import recipe

    r = recipe(args.tuner)
    path = getattr(args, "glimpse", None)
    if not path and not r.needs_glimpse:
        return None
    if r.strategy not in ("model-based", "glimpse"):
        raise UserError(f"--glimpse works with model-based recipes; {args.tuner} is not one")
    family = {"vta-sim": "vta", "llvm": "cpu"}.get(str(target.get("kind")))
    if family is None:
        raise UserError(f"Glimpse is trained for VTA designs (vta-sim) and CPU targets (llvm); target kind "
                        f"{target.get('kind')!r} has no trainer")
    path = path or default_path(family)
    if not os.path.exists(path):
        how = "--family vta" if family == "vta" else "--family cpu --tables DIR --measure"
        raise UserError(f"no Glimpse models at {path}; train them with `tensortune glimpse-train {how} --out {path}`")
    models = GlimpseModels.load(path)
    if models.family != family:
        raise UserError(f"the Glimpse models at {path} were trained for the {models.family} family, the target is "
                        f"of the {family} family")
    if r.needs_glimpse and models.acquisition is None:
        raise UserError(f"the Glimpse models at {path} have no acquisition function (trained with --af-iterations 0); "
                        "retrain them for --tuner glimpse")
    try:
        return models.for_task(task.space, task.workload, target, args.plan_size or r.default_plan_size)
    except ValueError as e:
        raise UserError(str(e)) from None


def _recipe_options(args: argparse.Namespace) -> dict:
    opts = {"plan_size": args.plan_size, "budget": args.trials}  # plan_size None: the recipe's default
    if args.loss is not None:
        opts["loss"] = args.loss
    if getattr(args, "variant", "paper") != "paper":
        opts["variant"] = args.variant
    return opts


def _label(name: str, args: argparse.Namespace) -> str:
    """The tuner's name in records and run ids: a non-default Chameleon variant is another run."""
    from tensortune.tuners.recipes import recipe

    variant = getattr(args, "variant", "paper")
    return f"{name}[{variant}]" if variant != "paper" and recipe(name).explorer == "ppo" else name


def _whole_model(args: argparse.Namespace) -> bool:
    """``--model`` without ``--tasks`` on this CPU, or any model file: the whole-model flow. (A built-in
    name with ``--tasks``, or on vta-sim/cuda, keeps the per-conv-layer flow.)"""
    from tensortune.models.zoo import BUILTIN

    if not args.model or args.tasks or args.codesign != "none":
        return False
    return args.model not in BUILTIN or args.target == "llvm"


def _prior(args: argparse.Namespace, storage: Any, task: Task, con: Any) -> Any:
    """The transfer prior from the database's other tasks (model-based recipes and ml2tuner, unless --no-transfer)."""
    from tensortune.transfer import TransferPrior
    from tensortune.tuners.recipes import learns_from_other_tasks

    if getattr(args, "no_transfer", False) or not learns_from_other_tasks(args.tuner):
        return None
    prior = TransferPrior.from_storage(storage, task, args.seed, corpus=corpus_for(args))
    if prior:
        # describe() names the shipped corpus's share when it is a source (not with --no-corpus, nor when no corpus
        # task is similar enough)
        con.print(f"  transfer: {task.name} learns from {prior.describe()} (database {args.db}; --no-transfer: off)")
    return prior or None


def check_per_task_options(args: argparse.Namespace) -> None:
    """Options of the whole-model flow mean nothing to a run that tunes its tasks one by one (a layer, a conv, a
    dense, ``--model`` with ``--tasks`` or off this CPU): one given another value than its default is refused, not
    ignored. ``--confirm-top`` works on both."""
    check_confirm(args)
    for dest, flag, default in getattr(args, "whole_model_only", ()):
        if getattr(args, dest, default) != default:
            run = ("a model's tasks one by one (--tasks)" if args.model and args.tasks else
                   f"a model's layers one by one on {args.target}" if args.model else "one task at a time")
            raise UserError(f"{flag} applies to a whole-model run (--model without --tasks, on llvm); this run tunes "
                            f"{run}")


def _confirm(args: argparse.Namespace, task: Task, summary: Any, measurer: Any, storage: Any, con: Any) -> None:
    """``--confirm-top``: the task's best configs measured again in interleaved rounds, after its run
    (:func:`tensortune.models.confirm.confirm_task`; not counted in ``--trials``, as for a whole model)."""
    from tensortune.models.confirm import confirm_task

    if not args.confirm_top:
        return
    if summary.stop_reason == "time budget spent":
        con.print(f"  confirmed: nothing for {task.name} (the time limit was reached; --confirm-top measures after "
                  "the budget)")
        return
    before = storage.best(task.key, task.target_json, k=1, run_id=summary.run_id)
    t0 = time.perf_counter()
    got = confirm_task(task, summary.run_id, measurer=measurer, storage=storage, tuner=_label(args.tuner, args),
                       seed=args.seed, top=args.confirm_top, rounds=args.confirm_rounds)
    if got is None:
        con.print(f"  confirmed: nothing for {task.name} (fewer than two good configs, or its best already "
                  "confirmed by an earlier run of this command)")
        return
    n, changed = got
    after = storage.best(task.key, task.target_json, k=1, run_id=summary.run_id)
    con.print(f"  confirmed: {task.name}'s best {args.confirm_top} configs measured again in {args.confirm_rounds} "
              f"interleaved rounds ({n} measurements, not counted in --trials, {time.perf_counter() - t0:.0f} s); "
              + (f"its best is now another config, {_us(after)} by the median of its repeats (before: "
                 f"{_us(before)})" if changed else f"its best kept its place, {_us(after)} by the median of its "
                 "repeats"))


def _us(rows: list[Any]) -> str:
    return f"{rows[0].cost * 1e6:.1f} us" if rows else "-"


def cmd_tune(args: argparse.Namespace) -> int:
    from tensortune.tuners import Tuner, create

    if _whole_model(args):
        return cmd_tune_model(args)
    check_per_task_options(args)
    target = parse_target_arg(args.target)
    check_tuner([args.tuner])
    tasks = _tasks(args, target)
    budget = _budget(args)
    glimpses = {}
    for t in tasks:  # surface template/space problems before anything is written
        try:
            _ = t.space
            glimpses[t.key] = _glimpse(args, t, target)
            create(args.tuner, t.space, args.seed, task=t, glimpse=glimpses[t.key], **_recipe_options(args))
        except ValueError as e:
            raise UserError(f"{t.name}: {e}") from None
    con = console()
    summaries = []
    with measurer_for(args, target) as measurer:  # every option checked before the database is touched
        storage = open_storage(args.db)
        for t in tasks:
            prior = _prior(args, storage, t, con)
            strat = create(args.tuner, t.space, args.seed, task=t, transfer=prior, glimpse=glimpses[t.key],
                           **_recipe_options(args))
            if glimpses[t.key] is not None:
                con.print(f"  glimpse: {len(glimpses[t.key].first_plan)} first configs from the prior, validity vote on")
            # --confirm-top measures the best configs again after the run: the loop's own single re-measure of its
            # incumbent would only add a figure that overrides the confirmed one on a rerun
            tuner = Tuner(t, strat, measurer, storage, budget, tuner_name=_label(args.tuner, args), seed=args.seed,
                          batch_size=args.batch_size, progress=not args.no_progress, wait=args.wait,
                          initial_configs=prior.initial_configs() if prior else None,
                          remeasure_best=not args.confirm_top)
            s = tuner.run()
            summaries.append(s)
            _confirm(args, t, s, measurer, storage, con)
            explored = getattr(strat, "explored", 0)
            if explored:
                con.print(f"  transfer: no other task's records ranked this task's measurements better than chance, "
                          f"so {explored} configs were measured at random (as without transfer) before the model "
                          f"planned again")
            if s.resumed:
                con.print(f"  resumed {s.resumed} stored measurements of run {s.run_id}")
    print_best(storage, [(t.key, t.target_json) for t in tasks], con)
    for s in summaries:
        con.print(summary_line(s))
    con.print(f"records stored in {args.db}")
    return 0


def summary_line(s: TuneSummary) -> str:
    """One line per tuned task: its measurements and where this call's wall time went. A resumed run's stored
    measurements were timed by the session that made them, so the line says how many of them this call made (before
    stop 105 a finished run's rerun read "search+training 99.8% of wall time": restoring the search, nothing
    measured)."""
    head = f"{s.trials} measurements"
    if s.resumed:
        head += f" ({s.trials - s.resumed} in this call, {s.resumed} resumed)"
    rest = max(s.wall_seconds - s.measure_seconds - s.search_seconds - s.storage_seconds, 0.0)
    return (f"{s.task.name}: {head}, {s.errors} failed; {s.wall_seconds:.1f} s: measuring {s.measure_seconds:.1f} s, "
            f"search and cost model {s.search_seconds:.1f} s, storing {s.storage_seconds:.1f} s, "
            f"the rest {rest:.1f} s; {s.stop_reason}")


def cmd_compare(args: argparse.Namespace) -> int:
    from rich.table import Table

    from tensortune.reports.compare import HEADERS, plot, summarise, table_rows, write_json
    from tensortune.tuners import Tuner, create

    target = parse_target_arg(args.target)
    tuners = [t.strip() for t in args.tuners.split(",") if t.strip()]
    check_tuner(tuners)
    seeds = ints(args.seeds, "--seeds")
    tasks = _tasks(args, target)
    if len(tasks) != 1:
        raise UserError("compare takes one task (use --layer, --conv or --dense, or --model with one --tasks entry)")
    task = tasks[0]
    budget = _budget(args)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a directory")
    glimpses = {}
    for name in tuners:
        try:
            glimpses[name] = _glimpse(argparse.Namespace(**{**vars(args), "tuner": name}), task, target)
            create(name, task.space, seeds[0], task=task, glimpse=glimpses[name], **_recipe_options(args))
        except ValueError as e:
            raise UserError(f"{name}: {e}") from None
    con = console()
    runs: dict[str, list[Any]] = {t: [] for t in tuners}
    start = time.perf_counter()
    baseline = None
    with measurer_for(args, target) as measurer:
        out.mkdir(parents=True, exist_ok=True)
        storage = open_storage(args.db)
        for seed in seeds:  # seeds outermost: drift of the machine hits every tuner alike
            for name in tuners:
                strat = create(name, task.space, seed, task=task, glimpse=glimpses[name], **_recipe_options(args))
                s = Tuner(task, strat, measurer, storage, budget, tuner_name=_label(name, args), seed=seed,
                          batch_size=args.batch_size, progress=not args.no_progress, wait=args.wait).run()
                runs[name].append(s)
    if args.baseline and target["kind"] == "llvm":
        from tensortune.measure.torch_baseline import torch_gflops

        baseline, _ = torch_gflops(task.workload, int(target.get("num-cores", 1)), args.repeat, args.min_repeat_ms)
    stats, overall = summarise(runs)
    table = Table(title=f"{task.name}: {task.workload.describe()}, {budget.trials} measurements x {len(seeds)} seeds")
    for h in HEADERS:
        table.add_column(h)
    for row in table_rows(stats):
        table.add_row(*row)
    con.print(table)
    if baseline:
        best = max(max(st.best_gflops) for st in stats)
        con.print(f"PyTorch oneDNN on the same layer, same run: {baseline:.1f} GFLOP/s "
                      f"(best tuned / oneDNN = {best / baseline:.2f})")
    slug = task.name.replace(":", "-").replace("/", "_")[:40]
    png = out / f"compare-{slug}.png"
    plot(runs, png, f"{task.name} ({task.workload.describe()})", baseline)
    write_json(runs, out / f"compare-{slug}.json", {"task": task.key, "target": task.target_json, "baseline_gflops": baseline,
                                                     "best_trial_gflops": overall, "command": " ".join(sys.argv),
                                                     "total_seconds": time.perf_counter() - start})
    con.print(f"plot: {png}\nsummary: {out / f'compare-{slug}.json'}\nrecords: {args.db}")
    return 0


# ---------------------------------------------------------------------------- parser
