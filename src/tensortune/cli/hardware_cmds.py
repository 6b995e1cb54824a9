"""``tensortune blueprint``: a hardware family's specs and how much of them a Blueprint of each dimension keeps."""

from __future__ import annotations

import argparse
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
