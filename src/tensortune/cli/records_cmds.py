"""Commands on the records database: ``best``, ``export`` (JSON lines or a MetaSchedule database), ``import``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tensortune.cli.common import (
    UserError,
    check_out_file,
    console,
    open_storage,
)


def fmt_config(cfg: dict | None) -> str:
    if not cfg:
        return "-"
    return " ".join(f"{k}={'x'.join(str(x) for x in v) if isinstance(v, list) else v}" for k, v in cfg.items())


# ---------------------------------------------------------------------------- commands


def print_best(storage: Any, keys: list[tuple[str, str]], con: Any) -> None:
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
            table.add_row(name, tmpl, f"{1e3 * b.cost:.4f}", f"{b.gflops:.1f}", str(n), fmt_config(b.config))
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
    print_best(storage, keys, console())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if not Path(args.db).exists():
        raise UserError(f"database {args.db} does not exist")
    if Path(args.out).exists() and not args.force:
        raise UserError(f"{args.out} exists; pass --force to overwrite it")
    parent = Path(args.out).absolute().parent
    if not parent.is_dir():
        raise UserError(f"--out {args.out}: directory {parent} does not exist")
    if args.format == "jsonl":
        check_out_file(args.out)
    storage = open_storage(args.db, readonly=True)
    try:
        if args.format == "metaschedule":
            from tensortune.models.export import export_metaschedule

            n = export_metaschedule(storage, args.out)
            if n == 0:
                raise UserError(f"{args.db} has no measured whole-model (TIR) tasks to export")
            print(f"exported the best schedule of {n} tasks as a MetaSchedule JSON database in {args.out}/")
            return 0
        n = storage.export_jsonl(args.out)
    except OSError as e:
        raise UserError(f"cannot write {args.out}: {e.strerror or e}; nothing was written") from None
    print(f"exported {n} records to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from tensortune.storage.sqlite import read_jsonl

    if not Path(args.file).is_file():
        raise UserError(f"{args.file} is not a file")
    try:
        recs = read_jsonl(args.file)  # the whole file is checked before the database is opened
    except ValueError as e:
        raise UserError(f"malformed import file, nothing imported: {e}") from None
    except OSError as e:
        raise UserError(f"cannot read {args.file}: {e.strerror or e}") from None
    n = open_storage(args.db).add(recs)
    print(f"imported {n} new records into {args.db}")
    return 0
