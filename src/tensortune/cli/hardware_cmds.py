"""``tensortune blueprint``: a hardware family's specs and how much of them a Blueprint of each dimension keeps."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tensortune.cli.common import UserError


def family_specs(family: str) -> list:
    from tensortune.hardware import cpu_specs, gpu_specs, vta_specs

    if family == "gpu":
        return gpu_specs()
    if family == "cpu":
        return cpu_specs()
    if family == "vta":
        from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS

        return vta_specs(DEFAULT_HW_OPTIONS)
    raise UserError(f"--family: gpu, cpu or vta, not {family!r}")


def cmd_blueprint(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from tensortune.hardware import information_loss

    if args.plot and not Path(args.plot).resolve().parent.is_dir():
        raise UserError(f"--plot: directory {Path(args.plot).parent} does not exist")
    specs = family_specs(args.family)
    con = Console()
    if len(specs) <= 20:
        t = Table(title=f"{args.family} specs ({len(specs)})")
        t.add_column("name")
        for c in specs[0].features:
            t.add_column(c, justify="right")
        for s in specs:
            t.add_row(s.name, *(f"{v:g}" for v in s.features.values()))
        con.print(t)
    curve = information_loss(specs)
    con.print(f"{len(specs)} {args.family} specs, {len(specs[0].features)} features; reconstruction RMSE of the "
              "standardised specs by Blueprint dimension:")
    con.print("  " + ", ".join(f"d={d}: {r:.3f}" for d, r in curve))
    if args.plot:
        from tensortune.bench.report import pyplot, save_figure

        plt = pyplot()
        fig, ax = plt.subplots(figsize=(4.5, 3.2))
        ax.plot([d for d, _ in curve], [r for _, r in curve], marker="o")
        ax.set_xlabel("Blueprint dimension")
        ax.set_ylabel("reconstruction RMSE (standardised specs)")
        ax.set_title(f"{args.family}: information loss", fontsize=9)
        save_figure(fig, Path(args.plot))
        con.print(f"plot: {args.plot}")
    return 0


def cmd_glimpse_train(args: argparse.Namespace) -> int:
    """Train Glimpse's prior generator, validity vote and acquisition function for a hardware family and
    store them in one file."""
    import sys

    from tensortune.transfer.glimpse import FAMILIES, default_path, train_cpu, train_vta

    if args.family not in FAMILIES:
        raise UserError(f"Glimpse training exists for the {', '.join(FAMILIES)} families; {args.family} targets "
                        "need measured training data, which no GPU here can give")
    out = args.out or default_path(args.family)
    exclude = [x.strip() for x in (args.exclude or "").split(",") if x.strip()]
    if args.af_iterations < 0:
        raise UserError(f"--af-iterations must be at least 0, got {args.af_iterations}")
    command = " ".join(["tensortune", *sys.argv[1:]])
    progress = None if args.no_progress else (lambda m: print(m, flush=True))
    try:
        if args.family == "cpu":
            tables = _cpu_tables(args, exclude, command)
            models = train_cpu(tables, exclude=exclude, seed=args.seed, af_iterations=args.af_iterations,
                               command=command, progress=progress, checkpoint=f"{out}.partial")
        else:
            if args.tables or args.measure:
                raise UserError("--tables and --measure are for --family cpu (VTA designs are evaluated analytically)")
            models = train_vta(designs=args.designs, exclude=exclude, seed=args.seed, af_iterations=args.af_iterations,
                               command=command, progress=progress,
                               checkpoint=f"{out}.partial")  # an interrupted training continues from here
    except ValueError as e:
        raise UserError(str(e)) from None
    models.save(out)
    if os.path.exists(f"{out}.partial"):
        os.remove(f"{out}.partial")
    t = models.trained_on
    what = "designs x ResNet-18's conv layers" if args.family == "vta" else f"CPU targets x layers {t['layers']}"
    print(f"trained Glimpse for {args.family} on {len(t['designs'])} {what} "
          f"({t['pairs']} pairs with a valid config, {t['vote_configs']} configs for the vote) in {t['train_s']} s; "
          f"held out: {', '.join(t['excluded']) or 'none'}; written to {out}")
    if models.acquisition is None:
        print("no acquisition function (--af-iterations 0): `--tuner glimpse` cannot use this file, "
              "`--glimpse` with another model-based recipe can")
    return 0


def _cpu_tables(args: argparse.Namespace, exclude: list[str], command: str) -> dict:
    """The CPU family's ground-truth tables under ``--tables``; with ``--measure``, first every missing
    table of a target this CPU can run (resumable through ``--db``)."""
    from tensortune.bench.groundtruth import measure_table, table_path
    from tensortune.hardware.specs import runnable_targets
    from tensortune.transfer.glimpse import CPU_LAYERS, cpu_family, load_cpu_tables, table_dir
    from tensortune.workloads import EVAL_LAYERS

    if not args.tables:
        raise UserError("--family cpu trains on ground-truth tables: give --tables DIR (add --measure to measure "
                        "the missing ones on this CPU first)")
    layers = [x.strip().upper() for x in args.layers.split(",") if x.strip()] if args.layers else list(CPU_LAYERS)
    bad = [x for x in layers if x not in EVAL_LAYERS]
    if bad:
        raise UserError(f"--layers: unknown layers {bad}; known: {', '.join(EVAL_LAYERS)}")
    if args.measure:
        if args.passes < 1:
            raise UserError(f"--passes {args.passes}: give 1 or more passes over each table's space")
        todo = [(s, layer) for s in cpu_family() if s.target["mcpu"] in runnable_targets() and s.name not in exclude
                for layer in layers if not table_path(layer, table_dir(args.tables, s)).exists()]
        for i, (s, layer) in enumerate(todo):
            print(f"measuring table {i + 1}/{len(todo)}: {layer} on {s.name} (every config of its reduced space)",
                  flush=True)
            measure_table(layer, args.db, table_dir(args.tables, s), progress=not args.no_progress, command=command,
                          target=dict(s.target), passes=args.passes)
    tables = load_cpu_tables(args.tables, layers)
    if not tables:
        raise UserError(f"no ground-truth tables of the CPU family under {args.tables} (expected e.g. "
                        f"{table_path(layers[0], table_dir(args.tables, cpu_family()[0]))}); add --measure")
    return tables
