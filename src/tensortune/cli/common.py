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
    """The records database at ``path`` (a plain file path: '?' or '#' in it are part of the name)."""
    from tensortune.storage import SQLiteStorage

    if path == ":memory:":  # a file of that name: records are never kept only in memory
        path = os.path.join(".", path)
    p = Path(path)
    if p.exists() and p.is_dir():
        raise UserError(f"database {path} is a directory")
    if not readonly:
        if p.exists() and not os.access(p, os.W_OK):
            raise UserError(f"cannot write database {path}: permission denied")
        parent = p.parent if str(p.parent) else Path(".")
        if not p.exists() and not parent.is_dir():
            raise UserError(f"cannot create database {path}: directory {parent} does not exist")
        if not p.exists() and not os.access(parent, os.W_OK):
            raise UserError(f"cannot create database {path}: directory not writable")
    return SQLiteStorage(path, readonly=readonly)


def corpus_for(args: argparse.Namespace) -> Any:
    """The pretrained corpus a model-based run transfers from: --corpus FILE, else the shipped one;
    None with --no-corpus or --no-transfer, or when this install ships none."""
    from tensortune.transfer.corpus import Corpus, CorpusError, default_corpus

    if getattr(args, "no_corpus", False) or getattr(args, "no_transfer", False):
        return None
    try:
        if getattr(args, "corpus", None):
            corpus = Corpus.load(args.corpus)
            corpus.install_task_files()
            return corpus
        return default_corpus()
    except CorpusError as e:
        raise UserError(str(e)) from None


def check_out_file(path: str | None, what: str = "--out") -> None:
    """An output file can be written where it is asked for: checked before any work starts."""
    if not path:
        return
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{what} {path} is a directory")
    parent = p.absolute().parent
    if not parent.is_dir():
        raise UserError(f"{what} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UserError(f"{what} {path}: not writable")


def parse_rpc(text: str) -> Any:
    from tensortune.measure.tvm_measurer import RpcTracker

    parts = text.split(":")
    if len(parts) != 3 or not parts[0] or not parts[1].isdigit() or not 0 < int(parts[1]) < 65536 or not parts[2]:
        raise UserError(f"--rpc takes host:port:key, got {text!r}")
    return RpcTracker(parts[0], int(parts[1]), parts[2])


def measurer_for(args: argparse.Namespace, target: dict) -> Any:
    """The measurer the run arguments ask for. Every option is checked (and an RPC tracker asked)
    before it is made, so bad input ends before any file is written."""
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer, check_options

    if target["kind"] == "vta-sim":
        if args.rpc:
            raise UserError("--rpc does not apply to the vta-sim target (it is an analytical model)")
        from tensortune.measure.vta_measurer import VtaSimMeasurer

        return VtaSimMeasurer(functional=args.functional)
    if args.functional:
        raise UserError("--functional applies to --target vta-sim only")
    rpc = parse_rpc(args.rpc) if args.rpc else None
    cache = getattr(args, "cache", "warm")
    cold = cache == "cold" or (cache == "auto" and bool(getattr(args, "model", None)))
    timing = TimingPolicy(args.repeat, args.min_repeat_ms, cold=cold)
    memory = getattr(args, "memory_limit", None)
    try:
        check_options(args.build_workers, args.build_timeout, args.run_timeout, timing, args.rpc_parallel, memory)
    except ValueError as e:
        raise UserError(str(e)) from None
    if rpc is not None:
        from tensortune.measure.tvm_jobs import check_tracker

        problem = check_tracker(rpc.as_dict())
        if problem:
            raise UserError(problem)
    return TvmMeasurer(build_workers=args.build_workers, build_timeout=args.build_timeout, run_timeout=args.run_timeout,
                       timing=timing, rpc=rpc, rpc_parallel=args.rpc_parallel, memory_limit_mb=memory,
                       run_threads=int(target.get("num-cores", os.cpu_count() or 1)))


def check_confirm(args: argparse.Namespace) -> None:
    """``--confirm-top`` / ``--confirm-rounds`` of ``tune`` (a whole model or one task at a time)."""
    if args.confirm_top == 1 or args.confirm_top < 0 or args.confirm_rounds < 1:
        raise UserError(f"--confirm-top must be 0 (off) or at least 2, and --confirm-rounds at least 1 (got "
                        f"{args.confirm_top}, {args.confirm_rounds})")


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
