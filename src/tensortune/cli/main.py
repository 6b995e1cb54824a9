"""``tensortune`` command: tune, best, export, import, compare.

Bad input ends with one line on stderr and exit status 2; nothing is written before the input has
been checked.
"""

from __future__ import annotations

import argparse
import os
import sys

# OpenMP threads of the tuner's own libraries (XGBoost, PyTorch) must not spin on the cores that the
# next measurement uses; set before those libraries load.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import time
from pathlib import Path
from typing import Any

from tensortune.cli.common import (
    UserError,
    _Parser,
    check_tuner,
    console,
    measurer_for,
    open_storage,
    parse_target_arg,
)
from tensortune.cli.model_cmds import cmd_build, cmd_profile, cmd_tune_model
from tensortune.core.values import Task
from tensortune.storage.sqlite import StorageError
from tensortune.templates import make_task


# ---------------------------------------------------------------------------- argument helpers
def _ints(text: str, what: str) -> list[int]:
    try:
        vals = [int(x) for x in text.replace("x", ",").split(",") if x.strip()]
    except ValueError:
        raise UserError(f"{what}: expected comma-separated integers, got {text!r}") from None
    if not vals:
        raise UserError(f"{what}: empty")
    return vals


def _parse_conv(text: str) -> Any:
    """``C,H,W,K,kernel,stride,pad[,dilation[,batch]]`` (square H/W/kernel)."""
    from tensortune.workloads import Conv2d

    v = _ints(text, "--conv")
    if len(v) not in (7, 8, 9):
        raise UserError(f"--conv takes C,H,W,K,kernel,stride,pad[,dilation[,batch]], got {len(v)} numbers")
    c, h, w, k, kern, stride, pad = v[:7]
    dil = v[7] if len(v) > 7 else 1
    batch = v[8] if len(v) > 8 else 1
    return Conv2d.make(batch, c, h, w, k, kern, stride, pad, dil)


def _parse_dense(text: str) -> Any:
    from tensortune.workloads import Dense

    v = _ints(text, "--dense")
    if len(v) != 3:
        raise UserError(f"--dense takes M,K,N, got {len(v)} numbers")
    return Dense.make(*v)


def _tasks(args: argparse.Namespace, target: dict) -> list[Task]:
    from tensortune.templates import default_template
    from tensortune.workloads import model_tasks, resolve_layer

    wls: list[tuple[str, Any]] = []
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
        wl = ModelConvs.of(args.model)
        return [make_task(wl, args.template or "model_codesign.vta-sim", target, f"{args.model}:all")]
    if args.tasks and not args.model:
        raise UserError("--tasks selects tasks of --model; it does nothing without it")
    if args.model:
        tasks = _ints(args.tasks, "--tasks") if args.tasks else None
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
    return Budget(trials=args.trials, seconds=args.time_limit, early_stopping=args.early_stopping)


def _recipe_options(args: argparse.Namespace) -> dict:
    opts = {"plan_size": args.plan_size}
    if args.loss is not None:
        opts["loss"] = args.loss
    return opts


def _fmt_config(cfg: dict | None) -> str:
    if not cfg:
        return "-"
    return " ".join(f"{k}={'x'.join(str(x) for x in v) if isinstance(v, list) else v}" for k, v in cfg.items())


# ---------------------------------------------------------------------------- commands
def _whole_model(args: argparse.Namespace) -> bool:
    """``--model`` without ``--tasks`` on this CPU, or any model file: the whole-model flow. (A built-in
    name with ``--tasks``, or on vta-sim/cuda, keeps the per-conv-layer flow.)"""
    from tensortune.models.zoo import BUILTIN

    if not args.model or args.tasks or args.codesign != "none":
        return False
    return args.model not in BUILTIN or args.target == "llvm"


def cmd_tune(args: argparse.Namespace) -> int:
    from tensortune.tuners import Tuner, create

    if _whole_model(args):
        return cmd_tune_model(args)
    target = parse_target_arg(args.target)
    check_tuner([args.tuner])
    tasks = _tasks(args, target)
    budget = _budget(args)
    for t in tasks:  # surface template/space problems before anything is written
        _ = t.space
        create(args.tuner, t.space, args.seed, task=t, **_recipe_options(args))
    storage = open_storage(args.db)
    con = console()
    summaries = []
    with measurer_for(args, target) as measurer:
        for t in tasks:
            strat = create(args.tuner, t.space, args.seed, task=t, **_recipe_options(args))
            tuner = Tuner(t, strat, measurer, storage, budget, tuner_name=args.tuner, seed=args.seed,
                          batch_size=args.batch_size, progress=not args.no_progress)
            s = tuner.run()
            summaries.append(s)
            if s.resumed:
                con.print(f"  resumed {s.resumed} stored measurements of run {s.run_id}")
    _print_best(storage, [(t.key, t.target_json) for t in tasks], con)
    for s in summaries:
        con.print(f"{s.task.name}: {s.trials} measurements ({s.errors} failed), {s.wall_seconds:.0f} s, "
                      f"search+training {100 * s.search_seconds / max(s.wall_seconds, 1e-9):.1f}% of wall time; {s.stop_reason}")
    con.print(f"records stored in {args.db}")
    return 0


def _print_best(storage: Any, keys: list[tuple[str, str]], con: Any) -> None:
    from rich.table import Table

    table = Table(title="best configuration per task")
    for h in ("task", "template", "best time (ms)", "GFLOP/s", "measured"):
        table.add_column(h, no_wrap=True)
    table.add_column("config", overflow="fold")
    for task_key, target_key in keys:
        recs = storage.records(task_key, target_key)
        best = storage.best(task_key, target_key, 1)
        name = next((r.task_name for r in recs if r.task_name), task_key)
        tmpl = task_key.split("|")[0]
        n = sum(1 for r in recs if r.kind == "trial")
        if best:
            b = best[0]
            table.add_row(name, tmpl, f"{1e3 * b.cost:.4f}", f"{b.gflops:.1f}", str(n), _fmt_config(b.config))
        else:
            table.add_row(name, tmpl, "-", "-", str(n), "no valid measurement")
    con.print(table)


def cmd_best(args: argparse.Namespace) -> int:
    if not Path(args.db).exists():
        raise UserError(f"database {args.db} does not exist")
    storage = open_storage(args.db, readonly=True)
    keys = [(a, b) for a, b, name in storage.tasks() if not args.task or args.task in name or args.task in a]
    if not keys:
        raise UserError("no records" + (f" for task matching {args.task!r}" if args.task else "") + f" in {args.db}")
    _print_best(storage, keys, console())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if not Path(args.db).exists():
        raise UserError(f"database {args.db} does not exist")
    if Path(args.out).exists() and not args.force:
        raise UserError(f"{args.out} exists; pass --force to overwrite it")
    storage = open_storage(args.db, readonly=True)
    if args.format == "metaschedule":
        from tensortune.models.export import export_metaschedule

        n = export_metaschedule(storage, args.out)
        if n == 0:
            raise UserError(f"{args.db} has no measured whole-model (TIR) tasks to export")
        print(f"exported the best schedule of {n} tasks as a MetaSchedule JSON database in {args.out}/")
        return 0
    n = storage.export_jsonl(args.out)
    print(f"exported {n} records to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    if not Path(args.file).is_file():
        raise UserError(f"{args.file} is not a file")
    storage = open_storage(args.db)
    try:
        n = storage.import_jsonl(args.file)
    except ValueError as e:
        raise UserError(f"malformed import file, nothing imported: {e}") from None
    print(f"imported {n} new records into {args.db}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from rich.table import Table

    from tensortune.reports.compare import HEADERS, plot, summarise, table_rows, write_json
    from tensortune.tuners import Tuner, create

    target = parse_target_arg(args.target)
    tuners = [t.strip() for t in args.tuners.split(",") if t.strip()]
    check_tuner(tuners)
    seeds = _ints(args.seeds, "--seeds")
    tasks = _tasks(args, target)
    if len(tasks) != 1:
        raise UserError("compare takes one task (use --layer, --conv or --dense, or --model with one --tasks entry)")
    task = tasks[0]
    budget = _budget(args)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    storage = open_storage(args.db)
    con = console()
    runs: dict[str, list[Any]] = {t: [] for t in tuners}
    start = time.perf_counter()
    baseline = None
    with measurer_for(args, target) as measurer:
        for seed in seeds:  # seeds outermost: drift of the machine hits every tuner alike
            for name in tuners:
                strat = create(name, task.space, seed, task=task, **_recipe_options(args))
                s = Tuner(task, strat, measurer, storage, budget, tuner_name=name, seed=seed,
                          batch_size=args.batch_size, progress=not args.no_progress).run()
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
def _add_task_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("what to tune (one of)")
    g.add_argument("--model", help="alexnet, vgg16, resnet18, path/file.py:ClassName or path/model.onnx: the whole "
                   "model (imported into TVM Relax); with --tasks, only those conv layers of a built-in model")
    g.add_argument("--tasks", help="with --model: 1-based conv-layer numbers, e.g. 6,9,11")
    g.add_argument("--layer", help="evaluation layer(s) L1..L8 or model:task, comma separated")
    g.add_argument("--conv", help="one conv2d: C,H,W,K,kernel,stride,pad[,dilation[,batch]]")
    g.add_argument("--dense", help="one dense layer: M,K,N")
    p.add_argument("--template", help="template name (default: the operator's template for the target)")
    p.add_argument("--target", default="llvm", help="llvm (this CPU), cuda, vta-sim (VTA-like accelerator model), "
                   "or a JSON target dict")
    p.add_argument("--codesign", choices=["none", "layer", "model"], default="none",
                   help="vta-sim: also tune the hardware, per layer or one design for the whole --model")


def _add_run_args(p: argparse.ArgumentParser, default_trials: int) -> None:
    p.add_argument("--trials", type=int, default=default_trials, help="measurement budget per task (and seed)")
    p.add_argument("--time-limit", type=float, help="wall-time budget per task in seconds")
    p.add_argument("--early-stopping", type=int, help="stop after this many trials without improvement")
    p.add_argument("--db", default="tensortune.db", help="SQLite records database (created if missing)")
    p.add_argument("--batch-size", type=int, default=16, help="configs measured (and committed) per batch")
    p.add_argument("--plan-size", type=int, default=64, help="model-based tuners: refit and replan every N trials")
    p.add_argument("--loss", choices=["rank", "reg"], help="XGBoost loss of the cost model (default: the recipe's: "
                   "rank for autotvm/chameleon, reg for arco)")
    p.add_argument("--functional", action="store_true",
                   help="vta-sim: also execute small layers on int8 data and check them against a direct convolution")
    p.add_argument("--repeat", type=int, default=5, help="timed repeats per measurement (median is the cost)")
    p.add_argument("--min-repeat-ms", type=int, default=40, help="each repeat runs the kernel at least this long")
    p.add_argument("--build-workers", type=int, default=max(1, os.cpu_count() or 1))
    p.add_argument("--build-timeout", type=float, default=60.0)
    p.add_argument("--run-timeout", type=float, default=30.0)
    p.add_argument("--rpc", help="measure through a TVM RPC tracker: host:port:key")
    p.add_argument("--rpc-parallel", type=int, default=1, help="devices leased from the tracker at once")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _command_line() -> str:
    """This invocation as a shell command, recorded in tables and reports ("" when not run as the CLI)."""
    return "tensortune " + " ".join(sys.argv[1:]) if sys.argv and sys.argv[0].endswith("tensortune") else ""


def cmd_groundtruth(args: argparse.Namespace) -> int:
    from tensortune.bench.groundtruth import GT_LAYERS, measure_table
    from tensortune.workloads import EVAL_LAYERS

    layers = [x.strip().upper() for x in args.layers.split(",") if x.strip()] if args.layers else list(GT_LAYERS)
    bad = [x for x in layers if x not in EVAL_LAYERS]
    if bad:
        raise UserError(f"--layers: unknown layers {bad}; known: {', '.join(EVAL_LAYERS)}")
    command = _command_line()
    for layer in layers:
        gt = measure_table(layer, args.db, args.out, batch_size=args.batch_size, progress=not args.no_progress,
                           command=command)
        print(f"{layer}: {gt.n} configs, {int(gt.meta['failed'])} failed, optimum {gt.optimum_gflops:.1f} GFLOP/s, "
              f"{gt.meta['session_wall_s']} s")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from tensortune.bench.groundtruth import available_tables
    from tensortune.bench.harness import BenchConfig, run_bench
    from tensortune.bench.report import write_report

    layers = [x.strip().upper() for x in args.layers.split(",") if x.strip()]
    have = available_tables(args.tables)
    missing = [x for x in layers if x not in have]
    if missing:
        raise UserError(f"--layers: no ground-truth table for {missing} (have: {', '.join(have) or 'none'}); "
                        "measure one with `tensortune groundtruth --layers ...`")
    peers = [] if args.peers.strip().lower() == "none" else [x.strip() for x in args.peers.split(",") if x.strip()]
    try:
        cfg = BenchConfig(layers=layers, budgets=_ints(args.budgets, "--budgets"), seeds=_ints(args.seeds, "--seeds"),
                          recipes=[x.strip() for x in args.recipes.split(",") if x.strip()], peers=peers,
                          ms_trials=args.ms_trials, batch_size=args.batch_size, table_dir=args.tables,
                          ms_seeds=_ints(args.ms_seeds, "--ms-seeds") if args.ms_seeds else None,
                          ms_layers=[x.strip().upper() for x in args.ms_layers.split(",")] if args.ms_layers else None,
                          ms_per_iter=args.ms_per_iter)
    except ValueError as e:
        raise UserError(str(e)) from None
    out = Path(args.out)
    command = _command_line()
    res = run_bench(cfg, out, command=command, progress=not args.no_progress)
    path = write_report(res.doc, out)
    print(f"report: {path}")
    return 0


DEFAULT_COMPARE = "eager,frozen,onnxruntime,untuned"
CONV_SPACE_HELP = ("our conv template's space: full (millions of configs per conv; default) or reduced (the ground-truth "
                   "tables' space: thousands per conv with large explicit unrolls, so builds take ~10x longer)")


def _add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="alexnet, vgg16, resnet18, path/file.py:ClassName or path/model.onnx")
    p.add_argument("--db", required=True, help="records database of the whole-model run")
    p.add_argument("--tuner", default="autotvm", help="the recipe the run was tuned with")
    p.add_argument("--seed", type=int, default=0, help="the run's seed")
    p.add_argument("--input-shape", help="model input shape, as given to tune")
    p.add_argument("--target", default="llvm", help="llvm (this CPU)")
    p.add_argument("--conv-space", choices=["reduced", "full"], default="full", help="as given to tune")


def build_parser() -> argparse.ArgumentParser:
    from tensortune import __version__

    p = _Parser(prog="tensortune", description="Autotune deep-learning operators with Apache TVM.")
    p.add_argument("--version", action="version", version=f"tensortune {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    t = sub.add_parser("tune", help="tune a model's layers or one layer")
    _add_task_args(t)
    t.add_argument("--tuner", default="autotvm", help="random, grid, autotvm, rl, sa-as, chameleon or arco")
    t.add_argument("--seed", type=int, default=0)
    wm = t.add_argument_group("whole model (--model NAME|file.py:Class|file.onnx without --tasks)")
    wm.add_argument("--input-shape", help="model input shape, e.g. 1,3,224,224 (default: the model's or that)")
    wm.add_argument("--allocator", choices=["gradient", "round-robin"], default="gradient",
                    help="how the --trials budget is shared among the model's tasks")
    wm.add_argument("--round-size", type=int, default=16, help="measurements a task gets per allocation round")
    wm.add_argument("--no-templates", action="store_true", help="tune every task on MetaSchedule's design space")
    wm.add_argument("--conv-space", choices=["reduced", "full"], default="full", help=CONV_SPACE_HELP)
    wm.add_argument("--compare", default=DEFAULT_COMPARE, help="also check and time: eager (PyTorch), frozen "
                    "(torch.jit.freeze + optimize_for_inference), onnxruntime (CPU EP; pip install 'tensortune[peers]'), "
                    "untuned (TVM), plain-tvm (TVM's own import + static_shape_tuning_pipeline on our export), "
                    "metaschedule (MetaSchedule's tuner with the same budget); comma separated, or empty")
    wm.add_argument("--out", help="write the model report (JSON) here (default: tensortune-MODEL/report.json beside --db)")
    _add_run_args(t, 64)
    t.set_defaults(func=cmd_tune)

    pr = sub.add_parser("profile", help="a stored whole-model run: per task, time inside the built model vs tuned")
    _add_model_args(pr)
    pr.add_argument("--compare", default="", help="also time these (as tune --model --compare)")
    pr.set_defaults(func=cmd_profile)

    bl = sub.add_parser("build", help="write a stored whole-model run as a library for the TVM runtime")
    _add_model_args(bl)
    bl.add_argument("--out", required=True, help="the library to write (e.g. resnet18.so); its .json goes beside it")
    bl.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    bl.set_defaults(func=cmd_build)

    b = sub.add_parser("best", help="table of the best config per task")
    b.add_argument("--db", default="tensortune.db")
    b.add_argument("--task", help="only tasks whose name or key contains this")
    b.set_defaults(func=cmd_best)

    e = sub.add_parser("export", help="export all records as JSON lines")
    e.add_argument("--db", default="tensortune.db")
    e.add_argument("--out", required=True)
    e.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    e.add_argument("--format", choices=["jsonl", "metaschedule"], default="jsonl",
                   help="jsonl: every record; metaschedule: the best schedule per model task as a MetaSchedule "
                        "JSON database: a directory with database_workload.json and database_tuning_record.json, "
                        "the work_dir of relax.pipeline.static_shape_tuning_pipeline(total_trials=0, "
                        "cpu_weight_prepack=True)")
    e.set_defaults(func=cmd_export)

    i = sub.add_parser("import", help="import records from JSON lines (all or nothing)")
    i.add_argument("file")
    i.add_argument("--db", default="tensortune.db")
    i.set_defaults(func=cmd_import)

    c = sub.add_parser("compare", help="several tuners on one task, same budget, several seeds")
    _add_task_args(c)
    c.add_argument("--tuners", default="random,autotvm")
    c.add_argument("--seeds", default="0,1,2")
    c.add_argument("--out", default="results", help="directory for the PNG plot and JSON summary")
    c.add_argument("--no-baseline", dest="baseline", action="store_false", help="skip the PyTorch oneDNN baseline")
    _add_run_args(c, 128)
    c.set_defaults(func=cmd_compare, db="compare.db")

    g = sub.add_parser("groundtruth", help="measure every config of the reduced spaces of evaluation layers")
    g.add_argument("--layers", help="comma-separated evaluation layers (default: L1,L2,L7,L8)")
    g.add_argument("--db", default="groundtruth.db", help="records, so an interrupted run resumes")
    g.add_argument("--out", default=None, help="table directory (default: the package's bench/tables)")
    g.add_argument("--batch-size", type=int, default=32)
    g.add_argument("--no-progress", action="store_true")
    g.set_defaults(func=cmd_groundtruth)

    bn = sub.add_parser("bench", help="our recipes (replay) vs MetaSchedule and PyTorch (live) on ground-truth layers")
    bn.add_argument("--layers", default="L1,L2,L7,L8", help="layers with a ground-truth table")
    bn.add_argument("--budgets", default="256,1000", help="measurement budgets reported (one run to the largest)")
    bn.add_argument("--seeds", default="0,1,2")
    bn.add_argument("--recipes", default="random,autotvm,chameleon,ml2tuner")
    bn.add_argument("--peers", default="metaschedule,pytorch", help="metaschedule, pytorch, or none")
    bn.add_argument("--ms-trials", type=int, default=None, help="MetaSchedule's budget (default: largest budget)")
    bn.add_argument("--ms-seeds", help="seeds MetaSchedule runs with (default: all; it measures live)")
    bn.add_argument("--ms-layers", help="layers MetaSchedule runs on (default: all)")
    bn.add_argument("--ms-per-iter", type=int, default=32, help="MetaSchedule's measurements per iteration")
    bn.add_argument("--batch-size", type=int, default=16)
    bn.add_argument("--tables", default=None, help="table directory (default: the package's)")
    bn.add_argument("--out", default="results/bench", help="report, plots and results.json (rerun resumes)")
    bn.add_argument("--no-progress", action="store_true")
    bn.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (UserError, StorageError, ValueError) as e:
        sys.stderr.write(f"tensortune: error: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("tensortune: interrupted; every measured batch is already stored, rerun to resume\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
