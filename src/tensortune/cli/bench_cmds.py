"""Benchmark commands: ``groundtruth`` (exhaustive tables of reduced spaces) and ``bench`` (recipes on replay
beside live peers; with a suite name: ``vta-arco``, ``ml2tuner``, ``zigzag``)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tensortune.cli.common import (
    UserError,
    ints,
    parse_target_arg,
)

if TYPE_CHECKING:
    from tensortune.storage.tables import GroundTruth


def _command_line() -> str:
    """This invocation as a shell command, recorded in tables and reports: ``tensortune ...`` from the
    console script or from ``python -m tensortune.cli.main`` ("" when not run as the CLI)."""
    argv0 = sys.argv[0].replace("\\", "/") if sys.argv else ""
    if argv0.endswith(("tensortune", "tensortune/cli/main.py")):
        return "tensortune " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    return ""


_TUNING_HEADER = ["| recipe | runs | reached 95% | measurements to 95% | wall to 95% (s) | reached 99% | to 99% "
                  "| search steps | invalid share | best / optimum |", "|---|---|---|---|---|---|---|---|---|---|"]


def _tuning_table(rows: list[dict]) -> list[str]:
    """The Glimpse tuning summary (``bench.glimpse_vta.tuning_summary``) as markdown lines, both families."""
    return _TUNING_HEADER + [
        f"| {r['recipe']} | {r['runs']} | {r['reached']} | {r['to_95']:.1f} | {r['wall_to_95_s']:.2f} | "
        f"{r['reached_99']} | {r['to_99']:.1f} | {r['steps']:.1f} | {r['invalid']:.3f} | {r['best']:.3f} |"
        for r in rows]


def warn_foreign_tables(names: list[str], table_dir: str | None = None) -> int:
    """Say loudly, on stderr, for every ground-truth table among ``names`` that another CPU measured;
    returns how many."""
    from tensortune.bench.groundtruth import available_tables, load_table

    have = set(available_tables(table_dir))
    n = 0
    for name in names:
        if name.upper() in have:
            msg = load_table(name.upper(), table_dir).foreign()
            if msg:
                sys.stderr.write(msg + "\n")
                n += 1
    return n


def _spread(gt: GroundTruth) -> str:
    """The optimum config's per-pass GFLOP/s, e.g. "131.2, 137.3, 140.0 GFLOP/s"."""
    row = gt.pass_cost[int(gt.cost.argmin())]
    return ", ".join(f"{gt.task.flops / c / 1e9:.1f}" if c < float("inf") else "failed" for c in row) + " GFLOP/s"


def cmd_groundtruth(args: argparse.Namespace) -> int:
    from tensortune.bench.groundtruth import GT_LAYERS, measure_table
    from tensortune.workloads import EVAL_LAYERS

    layers = [x.strip().upper() for x in args.layers.split(",") if x.strip()] if args.layers else list(GT_LAYERS)
    bad = [x for x in layers if x not in EVAL_LAYERS]
    if bad:
        raise UserError(f"--layers: unknown layers {bad}; known: {', '.join(EVAL_LAYERS)}")
    if args.passes < 1:
        raise UserError(f"--passes {args.passes}: give 1 or more passes over the space")
    command = _command_line()
    target = None
    if args.target:
        from tensortune.bench.groundtruth import check_cpu_target

        target = parse_target_arg(args.target)
        try:
            check_cpu_target(target)
        except ValueError as e:
            raise UserError(f"--target: {e}") from None
    for layer in layers:
        gt = measure_table(layer, args.db, args.out, batch_size=args.batch_size, progress=not args.no_progress,
                           command=command, target=target, passes=args.passes)
        agree = gt.meta.get("pass_agreement")
        said = (f", {gt.passes} passes (Spearman between passes {min(agree):.2f}-{max(agree):.2f}; "
                f"the optimum's passes read {_spread(gt)})" if agree else "")
        print(f"{layer}: {gt.n} configs, {int(gt.meta['failed'])} failed, optimum {gt.optimum_gflops:.1f} GFLOP/s, "
              f"{gt.meta['session_wall_s']} s{said}")
    return 0


def cmd_groundtruth_cuda(args: argparse.Namespace) -> int:
    """``groundtruth-cuda bundle`` (build here) and ``groundtruth-cuda tables`` (freeze a GPU's results)."""
    from tensortune.bench import groundtruth_cuda as gc
    from tensortune.workloads import EVAL_LAYERS

    if args.step == "bundle":
        layers = [x.strip().upper() for x in (args.layers or ",".join(gc.CUDA_LAYERS)).split(",") if x.strip()]
        bad = [x for x in layers if x not in EVAL_LAYERS]
        if bad:
            raise UserError(f"--layers: unknown layers {bad}; known: {', '.join(EVAL_LAYERS)}")
        if not args.out:
            raise UserError("groundtruth-cuda bundle needs --out (the bundle folder)")
        if args.workers < 1:
            raise UserError("--workers must be at least 1")
        try:
            m = gc.build(layers, args.out, arch=args.arch, workers=args.workers, limit=args.limit,
                         progress=not args.no_progress)
        except (ValueError, RuntimeError) as e:
            raise UserError(str(e)) from None
        for name, lay in m["layers"].items():
            print(f"{name}: {lay['n_configs']} configs in {len(lay['chunks'])} chunks")
        print(f"bundle: {args.out}; on the GPU machine: PYTHONPATH=src python3 -m tensortune.measure.cuda_runner "
              f"{args.out} --out RESULTS")
        return 0
    if not args.bundle or not args.results:
        raise UserError("groundtruth-cuda tables needs --bundle and --results")
    layers = [x.strip().upper() for x in args.layers.split(",") if x.strip()] if args.layers else None
    try:
        tables = gc.write_tables(args.bundle, args.results, args.out, layers, command=_command_line())
    except (ValueError, OSError) as e:
        raise UserError(str(e)) from None
    for gt in tables:
        lib = gc.cudnn_gflops(gt)
        print(f"{gt.name}: {gt.n} configs, {gt.meta['failed']} failed, optimum {gt.optimum_gflops:.0f} GFLOP/s, "
              f"cuDNN fp32 {lib:.0f} GFLOP/s ({gt.device})")
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
    warn_foreign_tables(layers, args.tables)
    peers = [] if args.peers.strip().lower() == "none" else [x.strip() for x in args.peers.split(",") if x.strip()]
    try:
        cfg = BenchConfig(layers=layers, budgets=ints(args.budgets, "--budgets"), seeds=ints(args.seeds, "--seeds"),
                          recipes=[x.strip() for x in args.recipes.split(",") if x.strip()], peers=peers,
                          ms_trials=args.ms_trials, batch_size=args.batch_size, table_dir=args.tables,
                          ms_seeds=ints(args.ms_seeds, "--ms-seeds") if args.ms_seeds else None,
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


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def cmd_bench_vta_arco(args: argparse.Namespace) -> int:
    from tensortune.bench.vta_arco import VtaArcoConfig, run_vta_arco, write_vta_arco_report

    try:
        cfg = VtaArcoConfig(trials=args.trials, model_trials=args.model_trials, plan_size=args.plan_size,
                            seeds=ints(args.seeds, "--seeds"), models=[m.lower() for m in _names(args.models)])
    except ValueError as e:
        raise UserError(str(e)) from None
    out = Path(args.out)
    res = run_vta_arco(cfg, out, command=_command_line(), progress=not args.no_progress)
    print(f"report: {write_vta_arco_report(res.doc, out)}")
    return 0


def cmd_bench_ml2tuner(args: argparse.Namespace) -> int:
    from tensortune.bench.ml2tuner import ML2TunerConfig, run_ml2tuner, write_ml2tuner_report

    try:
        cfg = ML2TunerConfig(vta_trials=args.vta_trials, cpu_trials=args.cpu_trials, seeds=ints(args.seeds, "--seeds"),
                             vta_layers=_names(args.vta_layers), cpu_layers=_names(args.cpu_layers),
                             n_test=args.n_test, cpu_n_test=args.cpu_n_test)
    except (ValueError, KeyError) as e:
        raise UserError(str(e).strip("'\"")) from None
    out = Path(args.out)
    res = run_ml2tuner(cfg, out, command=_command_line(), progress=not args.no_progress)
    print(f"report: {write_ml2tuner_report(res.doc, out)}")
    return 0


def cmd_bench_transfer(args: argparse.Namespace) -> int:
    from tensortune.bench.transfer import (
        TransferConfig,
        load_transfer_results,
        run_transfer,
        write_transfer_report,
    )

    if args.report_only:  # the report and figure of a finished file again (after the report changed), nothing run
        try:
            doc = load_transfer_results(Path(args.out))
        except ValueError as e:
            raise UserError(str(e)) from None
        print(f"report: {write_transfer_report(doc, Path(args.out))}")
        return 0
    try:
        cfg = TransferConfig(layers=_names(args.layers), recipes=_names(args.recipes), seeds=ints(args.seeds, "--seeds"),
                             trials=args.trials, tables=args.tables, features=_names(args.features),
                             live=_names(args.live) if args.live else [], confirm_top=args.confirm_top,
                             confirm_rounds=args.confirm_rounds, confirm_passes=args.confirm_passes,
                             confirm_gap=args.confirm_gap, confirm_incumbents=not args.no_confirm_incumbents)
    except ValueError as e:
        raise UserError(str(e)) from None
    warn_foreign_tables(cfg.layers, cfg.tables)
    out = Path(args.out)
    try:
        doc = run_transfer(cfg, out, command=_command_line(), progress=not args.no_progress)
    except ValueError as e:  # a results.json of other settings
        raise UserError(str(e)) from None
    print(f"report: {write_transfer_report(doc, out)}")
    return 0


def cmd_bench_features(args: argparse.Namespace) -> int:
    from tensortune.bench.features import compare_features, write_report
    from tensortune.bench.groundtruth import load_table

    layers = _names(args.layers)
    if args.train < 8 or args.test < 8:
        raise UserError(f"--train and --test must be at least 8 (got {args.train}, {args.test})")
    warn_foreign_tables(layers)
    try:
        rows = compare_features(layers, args.train, args.test, args.seed,
                                progress=(lambda m: None) if args.no_progress else (lambda m: print(m, flush=True)))
    except ValueError as e:  # too few layers, a table missing
        raise UserError(str(e)) from None
    meta = {"train_per_layer": args.train, "test_per_layer": args.test, "seed": args.seed,
            "machine": ", ".join(sorted({load_table(n).device for n in layers}))}
    print(f"report: {write_report(rows, args.out, _command_line(), meta)}")
    return 0


def parse_libraries(specs: list[str]) -> list:  # type: ignore[type-arg]
    """``--lib NAME=PATH[@SEED]`` arguments as ``models.latency.Library`` items."""
    from tensortune.models.latency import Library

    libs = []
    for spec in specs:
        name, eq, rest = spec.partition("=")
        if not eq or not name or not rest:
            raise UserError(f"--lib {spec!r}: expected NAME=PATH[@SEED]")
        path, at, seed = rest.rpartition("@")
        if not at or not seed.isdigit():
            path, seed = rest, "0"
        libs.append(Library(name, path, int(seed)))
    return libs


def cmd_bench_latency(args: argparse.Namespace) -> int:
    from tensortune.models.latency import LatencyConfig, run_latency, write_latency_report

    pairs = []
    for p in _names(args.pairs):
        a, slash, b = p.partition("/")
        if not slash:
            raise UserError(f"--pairs {p!r}: expected A/B")
        pairs.append((a.strip(), b.strip()))
    peers = [] if args.peers.strip() in ("", "none") else _names(args.peers)
    try:
        cfg = LatencyConfig(model=args.model, libraries=parse_libraries(args.lib), rounds=args.rounds, peers=peers,
                            pairs=pairs, combine=args.combine, threads=args.threads)
    except ValueError as e:
        raise UserError(str(e)) from None
    out = Path(args.out)
    doc = run_latency(cfg, out, command=_command_line(), progress=not args.no_progress)
    print(f"report: {write_latency_report(doc, out)}")
    return 0


def cmd_bench_chameleon(args: argparse.Namespace) -> int:
    from tensortune.bench.chameleon_study import StudyConfig, run_study, write_study_report

    try:
        cfg = StudyConfig(spaces=_names(args.spaces), seeds=ints(args.seeds, "--seeds"), trials=args.trials,
                          sizes=ints(args.sizes, "--sizes"), walk_lengths=ints(args.walks, "--walks"))
        warn_foreign_tables(cfg.spaces)
        res = run_study(cfg, Path(args.out), command=_command_line(), progress=not args.no_progress)
    except ValueError as e:  # an unknown space, a table missing, a results.json of other settings
        raise UserError(str(e)) from None
    print(f"report: {write_study_report(res.doc, Path(args.out))}")
    return 0


def cmd_bench_glimpse(args: argparse.Namespace) -> int:
    import json

    from tensortune.bench.glimpse_vta import run, summary

    seeds = ints(args.seeds, "--seeds")
    if args.family == "cpu":
        return _bench_glimpse_cpu(args, seeds)
    if args.tables:
        raise UserError("--tables is for --family cpu (VTA designs are evaluated analytically)")
    if not 1 <= args.train < args.designs:
        raise UserError(f"--train must be at least 1 and below --designs ({args.designs}), got {args.train}")
    if args.tuning:
        return _bench_glimpse_tuning(args, seeds)
    res = run(seeds, designs=args.designs, train=args.train, progress=print)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(res, indent=1))
    lines = ["# Glimpse on held-out VTA designs\n", f"Command: `{_command_line()}`\n",
             f"{args.designs} designs per seed from the co-design grid, {args.train} trained on, "
             f"{args.designs - args.train} held out; every ResNet-18 conv layer; seeds {seeds}; Blueprint of "
             f"{res['blueprint_dim']} dimensions (reconstruction RMSE {res['blueprint_loss']:.3f}). Held-out pairs "
             f"with at least one valid config: {len(res['rows'])}. Training (last seed): {res['costs']}.\n",
             "Medians over held-out (design, layer) pairs per seed, then over seeds. Quality = optimum cycles / "
             "cycles (0 if invalid) of the first 100 configs.\n", "| figure | value |", "|---|---|"]
    lines += [f"| {k} | {v:.3f} |" for k, v in summary(res)]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[4:]))
    print(f"report: {out / 'report.md'}")
    return 0


def _glimpse_recipes(text: str) -> tuple[str, ...]:
    recipes = tuple(_names(text))
    known = {"autotvm", "chameleon", "glimpse"}
    bad = [r for r in recipes if r.partition("+")[0].partition("/")[0] not in known]
    if bad or not recipes:
        raise UserError(f"--recipes: {', '.join(bad) or 'none given'}; known here: autotvm, chameleon, glimpse, "
                        "RECIPE+glimpse (the prior and vote), RECIPE/N (plan size N), glimpse/mean (the plan by "
                        "the ensemble's mean instead of the network)")
    return recipes


def _bench_glimpse_cpu(args: argparse.Namespace, seeds: list[int]) -> int:
    """Leave one CPU target out (``bench/glimpse_cpu.py``): initial samples and tuning runs, replayed."""
    import json

    import numpy as np

    from tensortune.bench.glimpse_cpu import run
    from tensortune.bench.glimpse_vta import tuning_summary
    from tensortune.transfer.glimpse import CPU_LAYERS, load_cpu_tables

    if not args.tables:
        raise UserError("--family cpu replays ground-truth tables of the family's targets: give --tables DIR "
                        "(made by `tensortune glimpse-train --family cpu --tables DIR --measure`)")
    if args.trials < 8 or args.af_iterations < 1:
        raise UserError(f"--trials must be at least 8 and --af-iterations at least 1 (got {args.trials}, "
                        f"{args.af_iterations})")
    recipes = _glimpse_recipes(args.recipes)
    try:
        tables = load_cpu_tables(args.tables, _names(args.cpu_layers) if args.cpu_layers else CPU_LAYERS)
        res = run(tables, seeds, trials=args.trials, recipes=recipes, af_iterations=args.af_iterations,
                  progress=lambda m: print(m, flush=True))
    except ValueError as e:
        raise UserError(str(e)) from None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(res, indent=1))
    keys = [k for k in res["samples"][0] if k.endswith((" mean", " best"))]
    lines = ["# Glimpse on a held-out CPU target (leave one target out)\n", f"Command: `{_command_line()}`\n",
             f"Tables measured on {res['machine']} for the targets {', '.join(res['targets'])}, layers "
             f"{', '.join(res['layers'])} (every config of the reduced space). Per seed and held-out target, Glimpse "
             f"(prior, vote, {res['af_iterations']} PPO iterations of the acquisition function) is trained on the "
             f"other targets' tables only. Seeds {seeds}. Medians over held-out (target, layer) pairs per seed, then "
             "over seeds.\n", "## Initial samples (the paper's Figure 4)\n",
             f"Quality = optimum cost / cost of the first {res['n']} configs: their mean and their best. random = "
             "AutoTVM's and Chameleon's first plan; transfer = the best configs of the same layer on the nearest "
             "training target (Blueprint distance).\n", "| figure | value |", "|---|---|"]
    seeds_in = sorted({r["seed"] for r in res["samples"]})
    for k in keys:
        per = [float(np.nanmedian([r[k] for r in res["samples"] if r["seed"] == s])) for s in seeds_in]
        lines.append(f"| {k} | {float(np.median(per)):.3f} |")
    lines += ["", "## Tuning (replayed from the held-out target's tables)\n",
              f"{res['trials']} measurements per run; autotvm and chameleon plan 32, glimpse 8; an unreached run counts "
              "as budget + 1. Wall time = the replayed measurements' original time + the tuner's own.\n"]
    lines += _tuning_table(tuning_summary(res))
    train = [c["train_s"] for c in res["costs"]]
    lines.append(f"\nTraining: {len(train)} trainings, median {np.median(train):.0f} s each "
                 f"({res['costs'][0]['pairs']} pairs each).")
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[3:]))
    print(f"report: {out / 'report.md'}")
    return 0


def _bench_glimpse_tuning(args: argparse.Namespace, seeds: list[int]) -> int:
    import json

    from tensortune.bench.glimpse_vta import tuning, tuning_summary

    if args.trials < 8 or args.layers < 1 or args.af_iterations < 1:
        raise UserError(f"--trials must be at least 8, --layers and --af-iterations at least 1 (got {args.trials}, "
                        f"{args.layers}, {args.af_iterations})")
    recipes = _glimpse_recipes(args.recipes)
    res = tuning(seeds, designs=args.designs, train=args.train, layers=args.layers, trials=args.trials,
                 af_iterations=args.af_iterations, recipes=recipes, progress=lambda m: print(m, flush=True))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tuning.json").write_text(json.dumps(res, indent=1))
    rows = tuning_summary(res)
    lines = ["# Glimpse tuning runs on held-out VTA designs\n", f"Command: `{_command_line()}`\n",
             f"Per seed {args.designs} designs from the co-design grid, {args.train} trained on (prior, vote and "
             f"{args.af_iterations} PPO iterations of the acquisition function), {args.designs - args.train} held "
             f"out; {args.layers} random ResNet-18 layers with a valid config per held-out design; {args.trials} "
             "measurements per run (analytical model). autotvm and chameleon: plan size 32 (RECIPE/N: N); "
             "autotvm+glimpse: autotvm with Glimpse's prior first plan and the vote as a filter stage; glimpse: the "
             "whole recipe (prior, ensemble surrogate, vote, neural acquisition function; plan size 8); glimpse/mean: "
             "the same with the plan taken by the ensemble's mean instead of the network. Medians over runs per "
             "seed, then over seeds; an unreached run counts as budget + 1. Wall time: the tuner's own time "
             "to 95% (the analytical model answers in microseconds, so it is search time).\n"]
    lines += _tuning_table(rows)
    (out / "tuning.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[3:]))
    print(f"report: {out / 'tuning.md'}")
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    from tensortune.bench.claims import ClaimsConfig, run_claims, write_claims_report

    try:
        cfg = ClaimsConfig(spaces=_names(args.spaces), seeds=ints(args.seeds, "--seeds"), trials=args.trials,
                           variant=args.variant, side_seeds=ints(args.side_seeds, "--side-seeds"))
        warn_foreign_tables(cfg.spaces)
        doc = run_claims(cfg, Path(args.out), command=_command_line(), progress=not args.no_progress)
    except ValueError as e:  # an unknown space, a table missing, a results.json of other settings
        raise UserError(str(e)) from None
    print(f"report: {write_claims_report(doc, Path(args.out))}")
    return 0


def cmd_bench_zigzag(args: argparse.Namespace) -> int:
    from tensortune.bench.zigzag import run_zigzag

    print(f"report: {run_zigzag(Path(args.out), command=_command_line())}")
    return 0
