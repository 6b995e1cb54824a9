"""What every command shares: the bad-input error, the argument parser, storage, target and
measurer set-up from the run arguments, the console."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, NoReturn


class UserError(Exception):
    """Bad input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"tensortune: error: {message} (see --help)\n")
        raise SystemExit(2)


def open_storage(path: str, readonly: bool = False) -> Any:
    from tensortune.storage import SQLiteStorage

    if not readonly:
        p = Path(path)
        if p.exists() and not os.access(p, os.W_OK):
            raise UserError(f"cannot write database {path}: permission denied")
        if not p.exists() and not os.access(p.parent if str(p.parent) else Path("."), os.W_OK):
            raise UserError(f"cannot create database {path}: directory not writable")
    return SQLiteStorage(path, readonly=readonly)


def measurer_for(args: argparse.Namespace, target: dict) -> Any:
    from tensortune.measure.tvm_measurer import RpcTracker, TimingPolicy, TvmMeasurer

    if target["kind"] == "vta-sim":
        if args.rpc:
            raise UserError("--rpc does not apply to the vta-sim target (it is an analytical model)")
        from tensortune.measure.vta_measurer import VtaSimMeasurer

        return VtaSimMeasurer(functional=args.functional)
    if args.functional:
        raise UserError("--functional applies to --target vta-sim only")
    rpc = None
    if args.rpc:
        parts = args.rpc.split(":")
        if len(parts) != 3 or not parts[1].isdigit():
            raise UserError(f"--rpc takes host:port:key, got {args.rpc!r}")
        rpc = RpcTracker(parts[0], int(parts[1]), parts[2])
    if args.repeat < 1 or args.min_repeat_ms < 0:
        raise UserError("--repeat must be >= 1 and --min-repeat-ms >= 0")
    return TvmMeasurer(build_workers=args.build_workers, build_timeout=args.build_timeout, run_timeout=args.run_timeout,
                       timing=TimingPolicy(args.repeat, args.min_repeat_ms), rpc=rpc, rpc_parallel=args.rpc_parallel,
                       run_threads=int(target.get("num-cores", os.cpu_count() or 1)))


def parse_target_arg(text: str) -> dict:
    from tensortune.core.targets import parse_target

    try:
        return parse_target(text)
    except ValueError as e:
        raise UserError(str(e)) from None


def check_tuner(names: list[str]) -> None:
    from tensortune.tuners import recipe_names

    for n in names:
        if n not in recipe_names():
            raise UserError(f"unknown tuner {n!r}; known tuners: {', '.join(recipe_names())}")


def console() -> Any:
    from rich.console import Console

    c = Console()
    return c if c.is_terminal else Console(width=200)


def ints(text: str, what: str) -> list[int]:
    try:
        vals = [int(x) for x in text.replace("x", ",").split(",") if x.strip()]
    except ValueError:
        raise UserError(f"{what}: expected comma-separated integers, got {text!r}") from None
    if not vals:
        raise UserError(f"{what}: empty")
    return vals
