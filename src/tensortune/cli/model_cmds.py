"""Whole-model commands: ``tune --model`` (whole model), ``profile`` and ``build``. The pipeline is
the library's (``models.flow``, ``models.pipeline``, ``models.deploy``); this module checks input and
renders what they return."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from tensortune.cli.common import (
    UserError,
    check_confirm,
    check_out_file,
    check_tuner,
    console,
    corpus_for,
    measurer_for,
    open_storage,
    parse_target_arg,
)
from tensortune.core.logs import native_log


def _compare(text: str | None) -> list[str]:
    from tensortune.models.pipeline import COMPARE

    compare = [c.strip() for c in (text or "").split(",") if c.strip()]
    bad = [c for c in compare if c not in COMPARE]
    if bad:
        raise UserError(f"--compare takes {', '.join(COMPARE)}; not {', '.join(bad)}")
    return compare


def _rounds(args: argparse.Namespace) -> int:
    if args.rounds < 10:
        raise UserError(f"--rounds must be at least 10 (the timing protocol's minimum), not {args.rounds}")
    return int(args.rounds)


def _load(args: argparse.Namespace) -> tuple[Any, dict]:
    from tensortune.models.importer import ModelError, load_model

    if args.target != "llvm":
        raise UserError("whole-model tuning runs on this CPU (--target llvm)")
    target = parse_target_arg(args.target)
    from tensortune.models.layout import apply_layout

    try:
        model = load_model(args.model, args.input_shape, seed=args.seed)
    except ModelError as e:
        raise UserError(str(e)) from None
    return apply_layout(model, getattr(args, "layout", "NCHW"), target, getattr(args, "winograd", "off")), target


def run_dir(args: argparse.Namespace, model: str) -> str:
    """Where a model run keeps its logs, MetaSchedule's work and the report: beside the database."""
    return os.path.join(os.path.dirname(os.path.abspath(args.db)), f"tensortune-{model}")


def render_tasks(con: Any, res: Any, timing: bool = True) -> None:
    """The per-task table; ``timing``: and where the tuning time went (not for a stored run read back)."""
    from rich.table import Table

    tab = Table(title=f"tasks ({res.trials} measurements, {res.wall_seconds:.0f} s)")
    for col in ("#", "task", "calls", "MFLOP", "tuned by", "trials", "best us", "GFLOP/s"):
        tab.add_column(col, justify="right" if col not in ("task", "tuned by") else "left")
    for i, r in enumerate(res.rows, 1):
        tab.add_row(str(i), r.name[:56], str(r.weight), f"{r.flops / 1e6:.1f}", r.how, str(r.trials),
                    f"{r.best_s * 1e6:.1f}" if r.best_s < float("inf") else "-", f"{r.gflops:.1f}" if r.gflops else "-")
    con.print(tab)
    if not timing:
        return
    t = res.time_split()
    con.print(f"tuning time {res.wall_seconds:.0f} s: measuring {t['measure_s']:.0f} s, search (cost model and explorer) "
              f"{t['search_s']:.0f} s, reading transfer sources {t['prior_s']:.0f} s, the rest (extracting tasks, "
              f"storing, confirming) {t['rest_s']:.0f} s")


def render_profile(con: Any, rep: Any) -> None:
    from rich.table import Table

    from tensortune.models.pipeline import IN_PROCESS, MEMORY_BOUND_FLOP_PER_BYTE, SLOW_FLAG

    tab = Table(title=f"{rep.model}: per task inside the built model ({rep.threads} threads); "
                      f"flag: in-model > {SLOW_FLAG:.2f} x tuned")
    for col in ("task", "tuned by", "calls", "tuned us", "alone now us", "in model us", "ratio", "share", "GFLOP/s",
                "GB/s", "could gain ms", ""):
        tab.add_column(col, justify="left" if col in ("task", "tuned by", "") else "right")
    flags = {None: "SLOW", "machine": "SLOW (alone too)", "model": "SLOW (in model)"}
    for p in sorted(rep.profile, key=lambda p: -p.share):
        rate = p.flops / (p.in_model_us * 1e-6) / 1e9 if p.flops else 0.0
        tab.add_row(p.task[:52], p.how, f"{p.calls:g}", f"{p.tuned_us:.1f}" if p.tuned_us else "-",
                    f"{p.standalone_us:.1f}" if p.standalone_us else "-",
                    f"{p.in_model_us:.1f}", f"{p.ratio:.2f}" if p.ratio else "-", f"{p.share:.1%}",
                    f"{rate:.1f}" if rate else "-", f"{p.gbytes_per_s:.1f}" + (" (memory)" if p.memory_bound else "")
                    if p.gbytes_per_s else "-", f"{p.could_gain_ms:.2f}", flags[p.slow_because] if p.slow else "")
    con.print(tab)
    if any(p.slow_because == "machine" for p in rep.profile):
        con.print("  SLOW (alone too): the kernel runs as slowly called alone now (same rounds, as tuned: cold caches "
                  "but for its input): this machine is slower now than when it was tuned, not the build")
    if any(p.memory_bound for p in rep.profile):
        con.print(f"  GB/s: its arguments' bytes (inputs, weights, output) over its in-model time; (memory): under "
                  f"{MEMORY_BOUND_FLOP_PER_BYTE:g} FLOP a byte, so its time follows the memory bandwidth, which on a "
                  "shared host drifts more than the FLOP rate: its tuned time is the best of many such draws")
    con.print(f"  outside the tasks (VM builtins, allocation): {rep.profile_other_ms:.3f} ms per inference; "
              "could gain: per inference, if the task ran at the in-model rate of the fastest task of its kind")
    total = sum(p.in_model_us * p.calls for p in rep.profile) / 1e3 + rep.profile_other_ms
    timed = rep.latency_ms.get(IN_PROCESS, rep.latency_ms.get("tensortune"))
    if timed:
        con.print(f"  the profiled inferences (instrumented, in the timing rounds) sum to {total:.2f} ms per inference; "
                  f"timed without instruments: {timed:.2f} ms")


def render_latency(con: Any, rep: Any) -> None:
    from tensortune.models.pipeline import IN_PROCESS

    ref = rep.latency_ms.get("tensortune")
    for name, ms in rep.latency_ms.items():
        err = rep.max_abs_error.get(name)
        rel = f"  ({ms / ref:.2f}x tensortune)" if ref and name != "tensortune" else ""
        con.print(f"  {name:25s} {ms:10.2f} ms{rel}" + (f"   max abs error {err:.1e}" if err is not None else ""))
    if IN_PROCESS in rep.latency_ms:
        con.print("  tensortune: the tuned library in a process of its own with the TVM runtime alone, as deployed; "
                  "(this process): the same build in the tuning process, where the per-task profile ran")
    for name, why in rep.skipped.items():
        con.print(f"  {name:25s} skipped: {why}")
    if rep.sgemm_gflops:
        con.print(f"  machine sgemm (PyTorch 2048^3, {rep.threads} threads): {rep.sgemm_gflops:.0f} GFLOP/s")


def _write_report(rep: Any, out: str) -> None:
    """A whole-model report as JSON, the one format ``tune --model`` and ``profile`` write."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(rep.to_json(), f, indent=1)


def cmd_tune_model(args: argparse.Namespace) -> int:
    """Whole model: import, extract tasks, share the budget, then the pipeline (build, check, profile, time)."""
    from tensortune.models.flow import tune_model
    from tensortune.models.pipeline import MismatchError, evaluate

    if any(x for x in (args.layer, args.conv, args.dense)):
        raise UserError("give exactly one of --model, --layer, --conv, --dense")
    compare = _compare(args.compare)
    rounds = _rounds(args)
    check_tuner([args.tuner])
    from tensortune.tuners.recipes import recipe

    if recipe(args.tuner).needs_glimpse:
        raise UserError(f"--tuner {args.tuner} tunes one layer (--layer) on a VTA design or a CPU target of its "
                        "family; a whole model's tasks include templates it was not trained on (use autotvm, "
                        "chameleon, ...)")
    if args.trials is None or args.trials < 1:
        raise UserError(f"--trials must be at least 1, got {args.trials}")
    if args.time_limit is not None and args.time_limit <= 0:
        raise UserError(f"--time-limit must be positive, got {args.time_limit}")
    if args.early_stopping is not None:
        raise UserError("--early-stopping applies to one task; a whole model's allocator already rests a task "
                        "that stops improving (use --trials or --time-limit for the whole model)")
    check_confirm(args)
    if not 0.0 <= args.confirm_share < 1.0 or (args.confirm_share and not args.confirm_top):
        raise UserError(f"--confirm-share takes a share of --trials in [0, 1) and needs --confirm-top (got "
                        f"{args.confirm_share}{'' if args.confirm_top else ' without --confirm-top'})")
    if args.round_size < 1 or args.batch_size < 1:
        raise UserError(f"--round-size and --batch-size must be at least 1 (got {args.round_size}, {args.batch_size})")
    check_out_file(args.out)
    model, target = _load(args)
    con = console()
    work = run_dir(args, model.name)
    measurer = measurer_for(args, target)  # every option checked before the database is touched
    storage = open_storage(args.db)
    corpus = corpus_for(args)
    con.print(f"{model.name}: input {model.input_shape}; budget {args.trials} measurements shared by its tasks "
              f"({args.allocator} allocator, {args.round_size} per round, recipe {args.tuner})")

    def on_round(k: int, row: Any, spent: int) -> None:
        if not args.no_progress:
            learned = f"  (+{row.transfer_records} records of other tasks)" if row.transfer_records else ""
            con.print(f"  round {k:3d}: {row.name[:48]:48s} {row.trials:4d} trials  {row.gflops:7.1f} GFLOP/s  "
                      f"[{spent}/{args.trials}]{learned}")

    def on_confirm(name: str) -> None:
        if not args.no_progress:
            con.print(f"  confirmed: {name[:48]}")

    log = os.path.join(work, "tvm.log")
    con.print(f"TVM's own log lines go to {log}")
    with native_log(log), measurer:
        res = tune_model(model, target, measurer=measurer, storage=storage, recipe=args.tuner, trials=args.trials,
                         allocator=args.allocator, round_size=args.round_size, seed=args.seed,
                         batch_size=args.batch_size, use_templates=not args.no_templates, conv_space=args.conv_space,
                         on_round=on_round, time_limit=args.time_limit, wait=args.wait,
                         transfer=not args.no_transfer, corpus=corpus, confirm_top=args.confirm_top,
                         confirm_rounds=args.confirm_rounds, on_confirm=on_confirm, confirm_share=args.confirm_share)
    if res.stop_reason:
        con.print(f"tuning stopped: {res.stop_reason}")
    c = res.confirm
    if c is not None and c.tasks:
        budget = ("not counted in the budget" if c.limit is None else
                  f"in the budget: {res.trials} search + {c.measurements} = {res.trials + c.measurements} of "
                  f"{args.trials}" + (f"; {c.left_out} lighter tasks left out" if c.left_out else ""))
        con.print(f"confirmed: the best {args.confirm_top} configs of {c.tasks} tasks measured again in "
                  f"{args.confirm_rounds} interleaved rounds ({c.measurements} measurements, {budget}; "
                  f"{c.seconds:.0f} s); {len(c.changed)} tasks now build another config than their fastest "
                  "single measurement")
    elif args.confirm_top and res.stop_reason.startswith("time limit"):
        con.print("confirmed: nothing (the time limit was reached; --confirm-top measures after the budget)")
    learned = [r.transfer_records for r in res.rows if r.transfer_records]
    if args.no_transfer:
        con.print("transfer: off (--no-transfer)")
    elif learned:
        from_corpus = max(r.corpus_records for r in res.rows)
        con.print(f"transfer: {len(learned)} tasks learned from other tasks' records (up to {max(learned)} records"
                  + (f"; up to {from_corpus} of the pretrained {os.path.basename(corpus.path)}, measured on "
                     f"{corpus.machine}" if corpus is not None and from_corpus else "") + ")")
    if corpus is None and not args.no_transfer:
        con.print("transfer: no pretrained corpus (--no-corpus, or none shipped)")
    elif not args.no_transfer and (gaps := corpus.missing_templates(r.template for r in res.rows if r.task and r.kind in ('conv2d', 'dense'))):
        con.print(f"transfer: {os.path.basename(corpus.path)} holds no records of "
                  + ", ".join(f"{t} ({n} task{'s' * (n > 1)})" for t, n in gaps.items())
                  + ": those tasks learned only from this run and your database (`tensortune corpus build` "
                  "measures a corpus of this machine)")
    render_tasks(con, res)
    try:
        rep, built = evaluate(model, target, res, compare=compare, work_dir=work, storage=storage, recipe=args.tuner,
                              seed=args.seed, repeat=rounds,
                              ms_trials=args.trials, ms_per_iter=args.round_size, status=lambda m: con.print(m))
    except MismatchError as e:
        raise UserError(str(e)) from None
    render_profile(con, rep)
    render_latency(con, rep)
    out = args.out or os.path.join(work, "report.json")
    _write_report(rep, out)
    con.print(f"report written to {out}; records in {args.db}; "
              f"`tensortune build --model {args.model} --db {args.db} --out {model.name}.so` writes the library")
    return 0


def cmd_profile(args: argparse.Namespace) -> int:
    """A stored whole-model run: build it from the database, profile it per task, time it."""
    from tensortune.models.flow import stored_result
    from tensortune.models.pipeline import MismatchError, evaluate

    check_tuner([args.tuner])
    if not os.path.exists(args.db):
        raise UserError(f"no database {args.db}")
    check_out_file(args.out)
    rounds = _rounds(args)
    model, target = _load(args)
    storage = open_storage(args.db)  # a kernel that fails its in-model check is stored as WRONG_ANSWER
    res = stored_result(model, target, storage, recipe=args.tuner, seed=args.seed, conv_space=args.conv_space,
                        transfer=not args.no_transfer, corpus=corpus_for(args))
    if not any(r.best_values for r in res.rows):
        raise UserError(f"{args.db} holds no tuned schedule of {model.name} for recipe {args.tuner}, seed {args.seed}")
    con = console()
    render_tasks(con, res, timing=False)
    try:
        # --compare metaschedule: MetaSchedule at the stored run's budget (resumed from the run's work dir)
        rep, _ = evaluate(model, target, res, compare=_compare(args.compare), work_dir=run_dir(args, model.name),
                          storage=storage, recipe=args.tuner, seed=args.seed, repeat=rounds, ms_trials=res.trials,
                          status=lambda m: con.print(m))
    except MismatchError as e:
        raise UserError(str(e)) from None
    render_profile(con, rep)
    render_latency(con, rep)
    if args.out:
        _write_report(rep, args.out)
        con.print(f"report written to {args.out}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    """Write the tuned model as a library loadable with the TVM runtime alone, checked in a fresh process."""
    from tensortune.models.build import build_model
    from tensortune.models.deploy import DeployError, metadata_path, write_library
    from tensortune.models.flow import TRANSFERRED, TWIN_CONFIG, stored_result
    from tensortune.models.pipeline import MismatchError, checked_build

    check_tuner([args.tuner])
    if not os.path.exists(args.db):
        raise UserError(f"no database {args.db}")
    check_out_file(args.out)
    meta_out = metadata_path(args.out)
    if args.out.endswith(".json"):
        raise UserError(f"--out {args.out}: the library's metadata is written beside it as NAME.json; "
                        "name the library NAME.so")
    for path in (args.out, meta_out):  # the metadata beside it may be another file, e.g. a tune report
        if os.path.exists(path) and not args.force:
            raise UserError(f"{path} exists (use --force to overwrite)")
    model, target = _load(args)
    storage = open_storage(args.db)  # a kernel that fails its in-model check is stored as WRONG_ANSWER
    res = stored_result(model, target, storage, recipe=args.tuner, seed=args.seed, conv_space=args.conv_space,
                        transfer=not args.no_transfer, corpus=corpus_for(args))
    n = sum(1 for r in res.rows if r.best_values)
    if n == 0:
        raise UserError(f"{args.db} holds no tuned schedule of {model.name} for recipe {args.tuner}, seed {args.seed}")
    con = console()
    log = os.path.join(run_dir(args, model.name), "tvm.log")
    shared = sum(1 for r in res.rows if r.best_values and TWIN_CONFIG in r.how)
    moved = sum(1 for r in res.rows if r.best_values and TRANSFERRED in r.how)
    said = ([f"{shared} of them a config measured on a twin task of the same shape"] if shared else []) + (
        [f"{moved} of them transferred from a similar task, never measured"] if moved else [])
    con.print(f"{model.name}: building with {n} tuned schedules" + (f" ({'; '.join(said)})" if said else "")
              + f", each checked inside the model (TVM's log: {log})")
    x = model.example_input(args.seed)
    try:
        built, _ = checked_build(model, target, res, build_model(model, target, log_path=log), x, storage=storage,
                                 recipe=args.tuner, seed=args.seed, log_path=log, status=lambda m: con.print(m))
    except MismatchError as e:
        raise UserError(str(e)) from None
    try:
        meta = write_library(built, args.out, model=model.name, input_shape=model.input_shape,
                             input_dtype=model.input_dtype, x=x, ref=model.torch_output(x),
                             extra={"tuned_tasks": n, "database": os.path.abspath(args.db)}, log_path=log)
    except DeployError as e:
        raise UserError(str(e)) from None
    con.print(f"wrote {args.out} and {metadata_path(args.out)}; loaded in a fresh process with the TVM runtime "
              f"alone, output vs {meta['check']['against']}: max abs error {meta['check']['max_abs_error']:.1e}")
    return 0


def cmd_corpus_build(args: argparse.Namespace) -> int:
    """Measure the pretrained corpus on this machine (resumable through --db) and write the corpus file."""
    import sys

    from tensortune.core.targets import llvm_cpu_key
    from tensortune.models.corpus import (
        CORPUS_CONV_TRIALS,
        CORPUS_DENSE_TRIALS,
        CORPUS_STEM_TRIALS,
        build_corpus,
    )
    from tensortune.transfer.corpus import corpus_file_for
    from tensortune.tuners.recipes import recipe

    check_tuner([args.tuner])
    if recipe(args.tuner).strategy != "model-based":
        raise UserError(f"--tuner {args.tuner}: the corpus is measured with a model-based recipe (autotvm, chameleon, ...)")
    if args.trials is None or args.trials < 1 or args.model_trials < 1:
        raise UserError(f"--trials and --model-trials must be at least 1 (got {args.trials}, {args.model_trials})")
    stem_trials = CORPUS_STEM_TRIALS if args.stem_trials is None else args.stem_trials
    conv_trials = CORPUS_CONV_TRIALS if args.conv_trials is None else args.conv_trials
    dense_trials = CORPUS_DENSE_TRIALS if args.dense_trials is None else args.dense_trials
    for flag, value in (("--stem-trials", stem_trials), ("--conv-trials", conv_trials),
                        ("--dense-trials", dense_trials)):
        if value < 0:
            raise UserError(f"{flag} must be at least 0, got {value}")
    out = args.out or corpus_file_for(llvm_cpu_key())
    if os.path.isdir(out):
        raise UserError(f"--out {out} is a directory")
    target = parse_target_arg("llvm")  # the corpus is of this CPU
    cold = argparse.Namespace(**{**vars(args), "cache": "cold" if args.cache == "auto" else args.cache})
    warm = argparse.Namespace(**{**vars(args), "cache": "warm" if args.cache == "auto" else args.cache})
    model_measurer, op_measurer = measurer_for(cold, target), measurer_for(warm, target)
    storage = open_storage(args.db)
    con = console()

    def on_round(k: int, row: Any, spent: int) -> None:
        if not args.no_progress:
            con.print(f"  round {k:3d}: {row.name[:48]:48s} {row.trials:4d} trials  {row.gflops:7.1f} GFLOP/s  "
                      f"[{spent}/{args.model_trials}]")

    work = run_dir(args, "corpusnet")
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "tvm.log")
    con.print(f"TVM's own log lines go to {log}; records in {args.db} (a rerun resumes)")
    with native_log(log):
        build_corpus(storage=storage, model_measurer=model_measurer, op_measurer=op_measurer, target=target, out=out,
                     model_trials=args.model_trials, op_trials=args.trials, seed=args.seed, recipe=args.tuner,
                     stem_trials=stem_trials, conv_trials=conv_trials, dense_trials=dense_trials,
                     status=lambda m: con.print(m), on_round=on_round,
                     command=" ".join(["tensortune", *sys.argv[1:]]))
    return 0


def cmd_corpus_show(args: argparse.Namespace) -> int:
    from rich.table import Table

    from tensortune.core.targets import device_name
    from tensortune.transfer.corpus import Corpus, CorpusError, default_corpus_path, shipped_corpora
    from tensortune.transfer.prior import FOREIGN_WEIGHT

    path = args.file or default_corpus_path()
    if path is None:
        raise UserError("this install ships no corpus: tensortune corpus build measures one on this machine")
    try:
        corpus = Corpus.load(path)
    except CorpusError as e:
        raise UserError(str(e)) from None
    con = console()
    here = device_name()
    if not args.file:
        con.print("shipped corpora (LLVM CPU name: file): "
                  + ", ".join(f"{cpu}: {os.path.basename(p)}" for cpu, p in shipped_corpora().items())
                  + "; a run on this machine uses the one below (this CPU's, else the nearest by vector width and "
                  "instruction set)")
    con.print(corpus.describe() + f"; created {corpus.created or '?'} by `{corpus.command or '?'}`")
    if corpus.machine != here:
        con.print(f"WARNING: measured on {corpus.machine}, this machine is {here}: its records are a prior of weight "
                  f"x{FOREIGN_WEIGHT} here; `tensortune corpus build` measures one on this machine")
    tab = Table(title=f"{path}")
    for col in ("task", "template", "records", "ok", "best GFLOP/s"):
        tab.add_column(col, justify="left" if col in ("task", "template") else "right")
    for t in corpus.tasks_:
        ok = [r for r in t.records if r.ok]
        tab.add_row(t.name[:48], t.task_key.split("|", 1)[0], str(len(t.records)), str(len(ok)),
                    f"{max(r.gflops for r in ok):.1f}" if ok else "-")
    con.print(tab)
    for part, proto in corpus.protocol.items():
        con.print(f"protocol ({part}): {proto}")
    return 0
