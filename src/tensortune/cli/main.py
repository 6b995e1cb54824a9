"""``tensortune``: the argument parser and the dispatch to the command modules (``tune_cmds``,
``model_cmds``, ``records_cmds``, ``bench_cmds``), which check input and render what the library returns.

Bad input ends with one line on stderr and exit status 2; nothing is written before the input has
been checked.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

# OpenMP threads of the tuner's own libraries (XGBoost, PyTorch) must not spin on the cores that the
# next measurement uses; set before those libraries load.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from tensortune.bench.results import BenchInputError  # noqa: E402
from tensortune.cli.bench_cmds import (  # noqa: E402
    cmd_bench,
    cmd_bench_chameleon,
    cmd_bench_features,
    cmd_bench_glimpse,
    cmd_bench_latency,
    cmd_bench_ml2tuner,
    cmd_bench_transfer,
    cmd_bench_vta_arco,
    cmd_bench_zigzag,
    cmd_claims,
    cmd_groundtruth,
    cmd_groundtruth_cuda,
)
from tensortune.cli.common import UserError, _Parser  # noqa: E402
from tensortune.cli.hardware_cmds import cmd_blueprint, cmd_glimpse_train  # noqa: E402
from tensortune.cli.model_cmds import cmd_build, cmd_corpus_build, cmd_corpus_show, cmd_profile  # noqa: E402
from tensortune.cli.records_cmds import cmd_best, cmd_export, cmd_import  # noqa: E402
from tensortune.cli.tune_cmds import cmd_compare, cmd_tune  # noqa: E402
from tensortune.core.values import DeviceError  # noqa: E402
from tensortune.models.layout import LAYOUT_CHOICES  # noqa: E402
from tensortune.models.winograd import WINOGRAD_CHOICES  # noqa: E402
from tensortune.storage.sqlite import StorageError  # noqa: E402

ROUNDS_HELP = ("rounds of the interleaved timing (each times every build and peer once, >= 200 ms each; the "
               "latency is the median); at least 10. More give a steadier median on a noisy machine")


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
    p.add_argument("--plan-size", type=int, default=None, help="model-based tuners: refit and replan every N trials "
                                                                "(default: the recipe's, 64 for most, 8 for glimpse)")
    p.add_argument("--loss", choices=["rank", "reg"], help="XGBoost loss of the cost model (default: the recipe's: "
                   "rank for autotvm, reg for chameleon/rl/sa-as/release/arco; rank for all of them when the "
                   "model learns from other tasks' records)")
    p.add_argument("--variant", choices=["paper", "code"], default="paper",
                   help="chameleon/rl/release: where the Chameleon paper and the authors' code disagree (PPO clip "
                   "0.3/0.2, entropy 0.1/0.3, shared first layer or separate networks), which to follow")
    p.add_argument("--functional", action="store_true",
                   help="vta-sim: also execute small layers on int8 data and check them against a direct convolution")
    p.add_argument("--repeat", type=int, default=5, help="timed repeats per measurement (median is the cost)")
    p.add_argument("--min-repeat-ms", type=int, default=40, help="each repeat runs the kernel at least this long")
    p.add_argument("--cache", choices=["auto", "warm", "cold"], default="auto",
                   help="cold: flush every argument but the input from the CPU caches before each timed run, as "
                   "the weights arrive inside a whole model; warm: repeat on cached data (default auto: cold for "
                   "--model, warm for a single layer)")
    p.add_argument("--build-workers", type=int, default=max(1, os.cpu_count() or 1))
    p.add_argument("--build-timeout", type=float, default=60.0)
    p.add_argument("--run-timeout", type=float, default=30.0)
    p.add_argument("--rpc", help="measure through a TVM RPC tracker: host:port:key")
    p.add_argument("--rpc-parallel", type=int, default=1, help="devices leased from the tracker at once")
    p.add_argument("--memory-limit", type=int, metavar="MB", help="address-space limit of each build and run worker "
                   "(default: half of this machine's memory, at least 2048); a config past it is stored as OUT_OF_MEMORY")
    p.add_argument("--glimpse", metavar="FILE", help="model-based recipes on vta-sim: Glimpse's trained prior gives "
                   "the first configs and its validity vote filters candidates; --tuner glimpse also plans with its "
                   "acquisition function (tensortune glimpse-train writes FILE; default for --tuner glimpse: "
                   "~/.cache/tensortune/glimpse/vta.json)")
    p.add_argument("--no-transfer", action="store_true", help="model-based recipes: learn only from this task's "
                   "own measurements (default: also from every other task of the same template in --db)")
    p.add_argument("--corpus", metavar="FILE", help="the pretrained prior's records (default: the corpus shipped in "
                   "the package; tensortune corpus build writes one)")
    p.add_argument("--no-corpus", action="store_true", help="transfer from --db only, not from the pretrained corpus")
    p.add_argument("--wait", action="store_true", help="if another process is tuning the same run, wait for it "
                   "(default: refuse at once)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


DEFAULT_COMPARE = "eager,frozen,onnxruntime,untuned"
CONV_SPACE_HELP = ("our conv template's space: full (millions of configs per conv; default), reduced (the ground-truth "
                   "tables' space: thousands per conv with large explicit unrolls, so builds take ~10x longer) or "
                   "tails (full, plus register tiles of output columns that do not divide the width, the last "
                   "tile of a row predicated; blocked layouts only)")


DEFAULT_LAYOUT = "auto"


def _add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="alexnet, vgg16, resnet18, path/file.py:ClassName or path/model.onnx")
    p.add_argument("--db", required=True, help="records database of the whole-model run")
    p.add_argument("--tuner", default="autotvm", help="the recipe the run was tuned with")
    p.add_argument("--seed", type=int, default=0, help="the run's seed")
    p.add_argument("--input-shape", help="model input shape, as given to tune")
    p.add_argument("--target", default="llvm", help="llvm (this CPU)")
    p.add_argument("--conv-space", choices=["reduced", "full", "tails"], default="full", help="as given to tune")
    p.add_argument("--layout", choices=LAYOUT_CHOICES, default=DEFAULT_LAYOUT, help="as given to tune")
    p.add_argument("--winograd", choices=WINOGRAD_CHOICES, default="auto", help="as given to tune")
    p.add_argument("--no-transfer", action="store_true", help="as given to tune: a task the run never measured runs "
                   "TVM's default lowering (default: the best config of the most similar tuned task, as tune "
                   "--model built it)")
    p.add_argument("--corpus", metavar="FILE", help="as given to tune (the pretrained prior's records)")
    p.add_argument("--no-corpus", action="store_true", help="as given to tune")


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
    wm_actions: list[argparse.Action] = []

    def wm_arg(*a: Any, **k: Any) -> None:
        wm_actions.append(wm.add_argument(*a, **k))

    wm_arg("--input-shape", help="model input shape, e.g. 1,3,224,224 (default: the model's or that)")
    wm_arg("--allocator", choices=["gradient", "round-robin"], default="gradient",
           help="how the --trials budget is shared among the model's tasks")
    wm_arg("--round-size", type=int, default=16, help="measurements a task gets per allocation round")
    wm_arg("--no-templates", action="store_true", help="tune every task on MetaSchedule's design space")
    wm_arg("--conv-space", choices=["reduced", "full", "tails"], default="full", help=CONV_SPACE_HELP)
    wm_arg("--layout", choices=LAYOUT_CHOICES, default=DEFAULT_LAYOUT,
           help="activation layout of the convolutions: auto (blocked, NCHW[x]c with x = this CPU's fp32 "
                "vector lanes), a named block (NCHW8c, NCHW16c, ...), or NCHW (plain)")
    wm_arg("--winograd", choices=WINOGRAD_CHOICES, default="auto",
           help="auto (default): blocked 3x3 stride-1 convolutions at batch 1 run as Winograd F(4,3) on "
                "outputs of 24x24 or more, F(2,3) below (2.25-4x fewer multiplications; fp32 error near "
                "1e-6 of the output scale); off: every convolution direct")
    wm_arg("--compare", default=DEFAULT_COMPARE, help="also check and time: eager (PyTorch), frozen "
           "(torch.jit.freeze + optimize_for_inference), onnxruntime (CPU EP; pip install 'tensortune[peers]'), "
           "untuned (TVM), plain-tvm (TVM's own import + static_shape_tuning_pipeline on our export), "
           "metaschedule (MetaSchedule's tuner with the same budget); comma separated, or empty")
    wm_arg("--out", help="write the model report (JSON) here (default: tensortune-MODEL/report.json beside --db)")
    wm_arg("--rounds", type=int, default=10, help=ROUNDS_HELP)
    wm_arg("--confirm-share", type=float, default=0.0, help="with --confirm-top: count its measurements in "
           "--trials, keeping this share of them (0 < F < 1) back from the search for it; the heaviest tasks "
           "(calls x best time) are confirmed first, while the share lasts. 0 (default): outside --trials")
    t.add_argument("--confirm-top", type=int, default=0,
                   help="K >= 2: once the budget is spent, measure each task's best K configs again in interleaved "
                   "rounds and keep (and build) the one with the best median, so a single lucky measurement does not "
                   "win; a layer, a conv or a dense: after its own run, a whole model: after its budget (not counted in "
                   "--trials unless --confirm-share; ResNet-18 on a Zen 4 EPYC: 576 more measurements, 121 s, no "
                   "measured latency gain; VGG-16 at 1,000 on a Zen 5 VM: 450 more, 10%% faster); 0 (default) leaves "
                   "it out")
    t.add_argument("--confirm-rounds", type=int, default=3, help="interleaved rounds of --confirm-top's measurements")
    # refused, not ignored, where the run is not the whole-model flow (tune_cmds.check_per_task_options)
    t.set_defaults(whole_model_only=[(a.dest, a.option_strings[0], a.default) for a in wm_actions])
    _add_run_args(t, 64)
    t.set_defaults(func=cmd_tune)

    pr = sub.add_parser("profile", help="a stored whole-model run: per task, time inside the built model vs tuned")
    _add_model_args(pr)
    pr.add_argument("--compare", default="", help="also time these (as tune --model --compare)")
    pr.add_argument("--out", help="also write the report as JSON (the format of tune --model --out)")
    pr.add_argument("--rounds", type=int, default=10, help=ROUNDS_HELP)
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
    g.add_argument("--target", help="an LLVM target this CPU can run, e.g. "
                                    "'{\"kind\": \"llvm\", \"mcpu\": \"haswell\", \"num-cores\": 1}' (default: this CPU, "
                                    "all cores); Glimpse's CPU family is measured this way")
    g.add_argument("--batch-size", type=int, default=32)
    g.add_argument("--passes", type=int, default=3, help="measure the whole space this many times, each pass in its "
                                                         "own random order; a config's cost is the median of its "
                                                         "passes' (default 3; 1 is the protocol before stop 109)")
    g.add_argument("--no-progress", action="store_true")
    g.set_defaults(func=cmd_groundtruth)

    gc = sub.add_parser("groundtruth-cuda", help="CUDA ground-truth tables: build kernels here (bundle), measure "
                                                 "them on a GPU machine without TVM, freeze its results (tables)")
    gc.add_argument("step", choices=["bundle", "tables"])
    gc.add_argument("--layers", help="comma-separated evaluation layers (default: L1,L2,L7,L8; tables: all measured)")
    gc.add_argument("--out", default=None, help="bundle: its folder (required); tables: table directory "
                                               "(default: the package's bench/tables/cuda)")
    gc.add_argument("--arch", default="sm_90", help="bundle: the GPU architecture (default sm_90: H100/H200)")
    gc.add_argument("--workers", type=int, default=2, help="bundle: chunks built in parallel")
    gc.add_argument("--limit", type=int, default=None, help="bundle: only the first N valid configs per layer")
    gc.add_argument("--bundle", help="tables: the bundle folder")
    gc.add_argument("--results", help="tables: the GPU runner's results folder")
    gc.add_argument("--no-progress", action="store_true")
    gc.set_defaults(func=cmd_groundtruth_cuda)

    bp = sub.add_parser("blueprint", help="Glimpse's hardware Blueprints: a family's spec table and the information "
                                          "lost (reconstruction RMSE) against the Blueprint's dimension")
    bp.add_argument("--family", choices=["gpu", "cpu", "vta"], default="gpu")
    bp.add_argument("--plot", help="PNG of the information-loss curve")
    bp.set_defaults(func=cmd_blueprint)
    gt = sub.add_parser("glimpse-train", help="train Glimpse's prior generator, validity vote and acquisition "
                                              "function for a hardware family (VTA designs: analytical; CPU targets: "
                                              "ground-truth tables of this CPU) and store them in one file")
    gt.add_argument("--family", default="vta", choices=["vta", "cpu", "gpu"])
    gt.add_argument("--designs", type=int, default=200, help="designs drawn from the co-design grid to train on")
    gt.add_argument("--exclude", help="comma-separated design names never trained on (held-out hardware)")
    gt.add_argument("--seed", type=int, default=0)
    gt.add_argument("--out", help="where to store them (default ~/.cache/tensortune/glimpse/FAMILY.json)")
    gt.add_argument("--af-iterations", type=int, default=30, help="PPO iterations of the neural acquisition "
                                                                  "function (0: none; the glimpse recipe needs it)")
    gt.add_argument("--tables", metavar="DIR", help="--family cpu: ground-truth tables, one directory per target "
                                                   "(DIR/haswell-x2/L7.json.gz, ...)")
    gt.add_argument("--layers", help="--family cpu: the layers whose tables train it (default L7,L8)")
    gt.add_argument("--measure", action="store_true", help="--family cpu: first measure every missing table of the "
                                                           "targets this CPU can run (about 5 min a table and pass; resumable)")
    gt.add_argument("--passes", type=int, default=3, help="--measure: passes per table (as groundtruth --passes)")
    gt.add_argument("--db", default="glimpse-tables.db", help="--measure: records, so an interrupted measurement resumes")
    gt.add_argument("--no-progress", action="store_true")
    gt.set_defaults(func=cmd_glimpse_train)

    co = sub.add_parser("corpus", help="the pretrained corpus: records of fixed conv and dense shapes measured on this "
                                       "machine, the prior of an empty database")
    cosub = co.add_subparsers(dest="corpus_command", required=True, parser_class=_Parser)
    cb = cosub.add_parser("build", help="measure (resumable) and write the corpus file")
    _add_run_args(cb, 64)
    cb.add_argument("--model-trials", type=int, default=640, help="measurements of the whole-model part, for each of its models (corpusnet, corpuswide, corpusmlp)")
    cb.add_argument("--stem-trials", type=int, default=None,
                    help="records each stem of the corpus models (a conv on RGB input) gets in all: after the "
                         "whole-model part, each is measured on its own up to this (default 256)")
    cb.add_argument("--conv-trials", type=int, default=None,
                    help="records each other convolution of the corpus models gets at least: after the whole-model "
                         "part, each with fewer is measured on its own up to this (default 128)")
    cb.add_argument("--dense-trials", type=int, default=None,
                    help="records each dense layer of the corpus models gets at least, as --conv-trials (default 128)")
    cb.add_argument("--out", help="the corpus file (default: the package's transfer/data/corpus-llvm-<LLVM CPU "
                                  "name>.json.gz for this CPU, which runs on this kind of CPU then use)")
    cb.add_argument("--seed", type=int, default=0)
    cb.add_argument("--tuner", default="autotvm", help="the model-based recipe that picks the measured configs")
    cb.set_defaults(func=cmd_corpus_build, db="corpus.db", functional=False)
    cs = cosub.add_parser("show", help="what a corpus file holds and where it was measured")
    cs.add_argument("file", nargs="?", help="a corpus file (default: the shipped one)")
    cs.set_defaults(func=cmd_corpus_show)

    cl = sub.add_parser("claims", help="re-measure each seed paper's headline ratio here (Chameleon, ReLeASE: replay "
                                       "tables and VTA spaces; ML2Tuner, ARCO: VTA model) into one Markdown table")
    cl.add_argument("--spaces", default="L1,L2,L7,L8,vta:resnet18:2,vta:resnet18:6")
    cl.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9", help="Chameleon/ReLeASE seeds")
    cl.add_argument("--side-seeds", default="0,1,2", help="ML2Tuner and ARCO seeds")
    cl.add_argument("--trials", type=int, default=256, help="Chameleon/ReLeASE measurements per run")
    cl.add_argument("--variant", choices=["paper", "code"], default="paper")
    cl.add_argument("--out", default="results/claims", help="claims.md and the parts' results (rerun resumes)")
    cl.add_argument("--no-progress", action="store_true")
    cl.set_defaults(func=cmd_claims)

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
    suites = bn.add_subparsers(dest="suite", metavar="[SUITE]",
                               help="another suite instead of the ground-truth layers: vta-arco, ml2tuner, transfer, "
                               "latency, chameleon, zigzag")
    va = suites.add_parser("vta-arco", help="ARCO vs Chameleon vs AutoTVM on the VTA-like accelerator; whole-model "
                                            "co-design (arco, arco-hier) against the exhaustive optimum")
    va.add_argument("--trials", type=int, default=128, help="measurements per layer, tuner and seed")
    va.add_argument("--model-trials", type=int, default=256, help="measurements per model, tuner and seed")
    va.add_argument("--plan-size", type=int, default=32)
    va.add_argument("--seeds", default="0,1,2")
    va.add_argument("--models", default="alexnet,vgg16,resnet18")
    va.add_argument("--out", default="results/vta-arco", help="report, plots and results.json (rerun resumes)")
    va.add_argument("--no-progress", action="store_true")
    va.set_defaults(func=cmd_bench_vta_arco)
    ml = suites.add_parser("ml2tuner", help="ML2Tuner vs AutoTVM, Chameleon with and without V (VTA model and CPU)")
    ml.add_argument("--vta-trials", type=int, default=200)
    ml.add_argument("--cpu-trials", type=int, default=96)
    ml.add_argument("--seeds", default="0,1,2")
    ml.add_argument("--vta-layers", default=",".join(f"resnet18:{i}" for i in range(1, 12)),
                    help="layers on the VTA model ('' for none)")
    ml.add_argument("--cpu-layers", default="L6,L8", help="layers on this CPU ('' for none)")
    ml.add_argument("--n-test", type=int, default=100, help="held-out valid configurations for the RMSE (VTA)")
    ml.add_argument("--cpu-n-test", type=int, default=30, help="held-out configurations for the RMSE (CPU)")
    ml.add_argument("--out", default="results/ml2tuner", help="report, plot and results.json (rerun resumes)")
    ml.add_argument("--no-progress", action="store_true")
    ml.set_defaults(func=cmd_bench_ml2tuner)
    fe = suites.add_parser("features", help="transferable features against MetaSchedule's PerStoreFeature: a cost "
                                            "model trained on the other tables ranks a held-out one (replay)")
    fe.add_argument("--layers", default="L1,L2,L7,L8", help="layers with a table; each is held out in turn")
    fe.add_argument("--train", type=int, default=256, help="configs of each source table the model is trained on")
    fe.add_argument("--test", type=int, default=512, help="unseen configs of the held-out table it ranks")
    fe.add_argument("--seed", type=int, default=0)
    fe.add_argument("--out", default="results/transfer/features", help="features.md and features.json")
    fe.add_argument("--no-progress", action="store_true")
    fe.set_defaults(func=cmd_bench_features)
    tf = suites.add_parser("transfer", help="leave-one-layer-out transfer learning on the ground-truth tables (replay)")
    tf.add_argument("--layers", default="L1,L2,L7,L8", help="layers with a table; each is held out in turn")
    tf.add_argument("--recipes", default="autotvm,chameleon", help="model-based recipes")
    tf.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8")
    tf.add_argument("--trials", type=int, default=200, help="measurements per run")
    tf.add_argument("--out", default="results/transfer", help="report.md, curves.png and results.json (rerun resumes)")
    tf.add_argument("--tables", default=None, help="table directory, e.g. tables of this CPU made with "
                                                   "`tensortune groundtruth --out DIR` (default: the package's)")
    tf.add_argument("--features", default="knobs", help="what the cost model of a transferred run sees: knobs "
                    "(knob features relative to the shape), schedule (MetaSchedule's PerStoreFeature of each config's "
                    "program, cached under OUT/schedule-features), knobs+corpus (knob features, and the shipped corpus of "
                    "the tables' CPU as sources beside the other tables), or several, comma-separated")
    tf.add_argument("--live", default="", help="evaluation layers without a table (e.g. L3,L6), held out on this "
                    "CPU: real measurements, the table layers as sources, reach counted against the best any run "
                    "of the layer found (each run's best configs measured again once all runs are done)")
    tf.add_argument("--confirm-top", type=int, default=8, help="with --live: each run's best configs measured again "
                    "(default 8)")
    tf.add_argument("--confirm-rounds", type=int, default=7, help="with --live: interleaved rounds of those measurements; "
                    "the figures count against their medians (default 7)")
    tf.add_argument("--confirm-passes", type=int, default=3, help="with --live: that confirmation in this many passes, "
                    "each with a fresh measurer, pass p of every live layer before pass p + 1; a config counts by the "
                    "median of its pass medians, and the report shows each pass and whether the goal holds in every "
                    "one (default 3; stop 95: one 90 s pass fell in a minutes-long phase that slowed some of L3's tile "
                    "shapes 2.5x). A rerun with more passes adds them to a finished results file")
    tf.add_argument("--confirm-gap", type=float, default=0.0, help="with --live: at least this many seconds from the "
                    "end of a layer's confirmation pass to the start of its next (default 0)")
    tf.add_argument("--no-confirm-incumbents", action="store_true", help="with --live: confirm each run's best "
                    "configs only, not also its incumbents (each config that read faster than all the run had measured "
                    "before). Without them a run that finds many good configs is credited late: its first good ones "
                    "fall out of its best by later readings (stop 101). A rerun that changes this confirms afresh and "
                    "keeps the earlier passes in results.json (superseded_passes)")
    tf.add_argument("--report-only", action="store_true", help="write report.md and curves.png again from the "
                    "results.json in --out, measuring nothing (the other options are ignored: the file's own are used)")
    tf.add_argument("--no-progress", action="store_true")
    tf.set_defaults(func=cmd_bench_transfer)
    la = suites.add_parser("latency", help="whole-model latency of written libraries (tensortune build) against each "
                                           "other and ONNX Runtime: a fresh process per measurement, rounds in random "
                                           "order, paired per-round ratios with bootstrap intervals")
    la.add_argument("--model", required=True, help="the model the libraries were built from (zoo name or file)")
    la.add_argument("--lib", action="append", default=[], metavar="NAME=PATH[@SEED]",
                    help="a library to time, named; @SEED: the --seed it was built with (its weights; default 0)")
    la.add_argument("--rounds", type=int, default=12, help="rounds; a rerun with more extends the set")
    la.add_argument("--pairs", default="", help="A/B,...: per-round ratios of these contenders")
    la.add_argument("--combine", action="store_true", help="the pairs are one comparison (one pair per tuning "
                                                            "seed): also judge them together, round by round")
    la.add_argument("--peers", default="onnxruntime", help="onnxruntime, eager, both comma-separated, or none")
    la.add_argument("--threads", type=int, default=0, help="threads of every contender (default: every core)")
    la.add_argument("--out", default="results/latency", help="report.md, latency.png and results.json (rerun resumes)")
    la.add_argument("--no-progress", action="store_true")
    la.set_defaults(func=cmd_bench_latency)
    ch = suites.add_parser("chameleon", help="Chameleon: candidate-set size and walk length against plan quality, "
                                             "and each correction of issue 20 alone (replay tables, VTA spaces)")
    ch.add_argument("--spaces", default="L1,L2,L7,L8,vta:resnet18:2,vta:resnet18:6",
                    help="ground-truth layers and vta:<model>:<task> co-design spaces")
    ch.add_argument("--seeds", default="0,1,2")
    ch.add_argument("--trials", type=int, default=256, help="measurements per tuning run")
    ch.add_argument("--sizes", default="16,32,64,128,256,512", help="candidate-set sizes")
    ch.add_argument("--walks", default="0,10,50", help="walk lengths (0: the published stopping rule)")
    ch.add_argument("--out", default="results/chameleon-study", help="report.md and results.json (rerun resumes)")
    ch.add_argument("--no-progress", action="store_true")
    ch.set_defaults(func=cmd_bench_chameleon)
    gl = suites.add_parser("glimpse", help="Glimpse on held-out VTA designs: initial samples of the prior generator "
                                           "against random and transfer, validity voting (analytical model, minutes)")
    gl.add_argument("--seeds", default="0,1,2")
    gl.add_argument("--family", choices=["vta", "cpu"], default="vta",
                    help="vta: held-out designs (analytical); cpu: leave one CPU target out over --tables (initial "
                         "samples and tuning runs, replayed)")
    gl.add_argument("--tables", metavar="DIR", help="--family cpu: the family's ground-truth tables (DIR/<mcpu>-x<cores>/)")
    gl.add_argument("--cpu-layers", help="--family cpu: layers (default L7,L8)")
    gl.add_argument("--designs", type=int, default=30, help="designs drawn from the co-design grid per seed")
    gl.add_argument("--train", type=int, default=24, help="of them, the ones trained on (the rest are held out)")
    gl.add_argument("--out", default="results/glimpse-vta", help="report.md and results.json")
    gl.add_argument("--tuning", action="store_true", help="tuning runs on held-out designs instead: measurements, "
                                                          "wall time and search steps to 95%% of the optimum, invalid "
                                                          "share, for autotvm, chameleon and glimpse (tuning.md)")
    gl.add_argument("--layers", type=int, default=2, help="--tuning: layers per held-out design")
    gl.add_argument("--trials", type=int, default=96, help="--tuning: measurements per run")
    gl.add_argument("--af-iterations", type=int, default=30, help="--tuning: PPO iterations of the acquisition function")
    gl.add_argument("--recipes", default="autotvm,autotvm+glimpse,chameleon,glimpse",
                    help="--tuning: recipes; RECIPE/N runs it with plan size N, glimpse/mean plans by the ensemble's "
                         "mean instead of the network (an ablation)")
    gl.set_defaults(func=cmd_bench_glimpse)
    zz = suites.add_parser("zigzag", help="the VTA model's best cycles per layer against ZigZag's (needs zigzag-dse)")
    zz.add_argument("--out", default="results/vta-zigzag", help="report.md and results.json")
    zz.set_defaults(func=cmd_bench_zigzag)
    return p


class Terminated(BaseException):
    """SIGTERM: unwinds like Ctrl-C, so workers are killed and temporary directories removed."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    try:
        return int(args.func(args) or 0)
    except (UserError, StorageError, BenchInputError) as e:  # bad input or an unusable file; other errors are bugs
        sys.stderr.write(f"tensortune: error: {e}\n")
        return 2
    except DeviceError as e:
        sys.stderr.write(f"tensortune: measuring stopped: {e}; every finished batch is stored, rerun to resume\n")
        return 3
    except KeyboardInterrupt:
        sys.stderr.write("tensortune: interrupted; every measured batch is already stored, rerun to resume\n")
        return 130
    except Terminated:
        sys.stderr.write("tensortune: terminated; every measured batch is already stored, rerun to resume\n")
        return 143
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    raise SystemExit(main())
