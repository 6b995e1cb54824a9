"""``tensortune corpus build``: measure the pretrained corpus on this machine.

Two parts, both resumable (every measurement is in the records database before the next is made; a
rerun with the same database and seed measures only what is missing):

1. the whole-model flow on :data:`CORPUS_MODELS` (:class:`~tensortune.models.zoo.CorpusNet`, at most 80
   pixels, :class:`~tensortune.models.zoo.CorpusWideNet`, 12-192 pixels, and
   :class:`~tensortune.models.zoo.CorpusMlp`, three dense layers; blocked layout, fused epilogues, cold
   caches, as ``tune --model`` measures), so whole-model runs of other models start from their records;
   then (part 1b) each of their convolutions measured on its own until it has :data:`CORPUS_STEM_TRIALS`
   records (a stem) or :data:`CORPUS_CONV_TRIALS` (any other), and each dense layer until it has
   :data:`CORPUS_DENSE_TRIALS`: the flow's allocator gives a small or early task few, and a whole-model
   run's similar task transfers from them;
2. single layers (``conv2d_nchw.llvm`` and ``dense.llvm``, warm caches, as ``tune --conv/--dense``)
   of :data:`CORPUS_OPS`, for single-layer runs.

Then the records of those tasks, the machine and both protocols are written to one gzip file
(:class:`~tensortune.transfer.corpus.Corpus`); the package ships the ones this command wrote on our
machines, one a CPU (``src/tensortune/transfer/data/corpus-llvm-<LLVM CPU name>.json.gz``).
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Callable
from typing import Any

from tensortune.models.flow import DENSE, MS_SPACE, TaskRow, tune_model
from tensortune.models.importer import import_torch
from tensortune.models.layout import apply_layout
from tensortune.models.zoo import CorpusMlp, CorpusNet, CorpusWideNet, randomize_batchnorm
from tensortune.templates import default_template, make_task
from tensortune.transfer.corpus import Corpus
from tensortune.transfer.features import conv_in_channels
from tensortune.workloads import Conv2d, Dense

# single layers: (C, H, W, K, kernel, stride, pad); dense (M, K, N). None is a shape of AlexNet, VGG-16,
# ResNet-18 or the evaluation layers L1-L8. The last three (stop 42) are stems and a wide early layer: a
# 3-channel 11x11/4 conv at 195 px (48x48 outputs: at 192 px its 47 output columns, a prime, left the column
# register tile at 1, and its best config, 106 GFLOP/s, was a poor source), a 3-channel 3x3/1 conv and a
# 64-channel 3x3/1 conv at 128 px, so that a held-out
# stem (L1, L3) or VGG's second layer (L4) has a source similar enough to transfer from (the shape
# similarity of prior.py: exp(-d^2/8) of 0.89, 0.72 and 0.61 with L1, L3 and L4, where the best of the
# other shapes gives 0.007, 0.13 and 0.045). Stop 41's probe on Zen 4 (results/transfer/l1-stem-probe-znver4-s41):
# with one such source, held-out L1 reached 95% of its best in a median of 14 measurements against > 64.
# Tried and left out (stop 48, results/transfer/loo-znver5-s48/): the same stem with 64 filters. Its best (320
# GFLOP/s in 64 measurements, against the 48-filter one's 185) mapped onto L1's space at 0.59-0.65 of L1's optimum
# (0.28-0.31 from the 48-filter one), yet held-out L1 then took more measurements to 95% with autotvm (36 against
# 26), rl (37 against 27) and sa-as (54 against 13); only chameleon gained (119 against > 120).
CORPUS_CONVS = [(3, 160, 160, 32, 7, 2, 3), (32, 80, 80, 48, 3, 1, 1), (96, 40, 40, 96, 3, 1, 1),
                (96, 40, 40, 96, 1, 1, 0), (96, 40, 40, 160, 5, 2, 2), (160, 20, 20, 160, 3, 1, 1),
                (160, 20, 20, 320, 1, 2, 0), (320, 10, 10, 320, 3, 1, 1),
                (3, 195, 195, 48, 11, 4, 2), (3, 160, 160, 48, 3, 1, 1), (64, 128, 128, 64, 3, 1, 1)]
CORPUS_DENSES = [(1, 640, 500), (1, 1536, 768), (1, 2048, 256)]
# single layers measured ``--trials`` times this factor (stop 52): the three shapes above, the only near sources
# of the held-out stems (L1, L3) and VGG's wide early layers (L4, L5). Measured 64 times, the 11x11/4 stem's best
# (174.5 GFLOP/s on the Intel rocketlake CPU) mapped onto L1 at 0.35-0.48 of L1's optimum and autotvm with
# transfer took a median of 86 measurements to 95% on held-out L1; measured 256 times, 20 in stop 51's probe (best
# 304.6) and 63 in stop 52's rebuild (best 304.3; which configs the stem's tuning visits decides it), and the 3x3
# stem's new best is L3's optimum (results/transfer/loo-rocketlake-s52). A resumed build measures only the added trials.
CORPUS_TRIALS_FACTOR = {(3, 195, 195, 48, 11, 4, 2): 4, (3, 160, 160, 48, 3, 1, 1): 4, (64, 128, 128, 64, 3, 1, 1): 4}
# CorpusMlp (stop 78): the dense layers, now a template's (``dense_fused.llvm``) and so transferable
CORPUS_MODELS = {"corpusnet": CorpusNet, "corpuswide": CorpusWideNet, "corpusmlp": CorpusMlp}
# part 1b (stop 76): the corpus models' stems, convolutions of at most STEM_CHANNELS input channels (RGB), are
# measured on their own after the whole-model flow until each has this many records: the flow's allocator gives a
# stem few of its 640 (Zen 3, stop 70's build: 40 for CorpusNet's 7x7/2 stem, best 120.8 GFLOP/s; 22 for
# CorpusWideNet's first conv), and a whole-model run's stem is transferred from them alone. On the Zen 3 VM (stop
# 76, results/transfer/znver3-s76/) 256 measurements of CorpusNet's stem found 176.2 GFLOP/s, and ResNet-18's
# 7x7/2 stem then started from 179-184 GFLOP/s (its 8 mapped configs, three seeds) against 42-156 from the 40
# records, and 174-177 after 80 measurements of its own without transfer.
CORPUS_STEM_TRIALS = 256
# and (stop 77) every other convolution of the corpus models, direct or Winograd, until it has at least this many:
# stop 70's build left CorpusNet's three 1x1 convs (one of them the only 1x1/2 source of ResNet-18's downsample
# convs) at 21-24 records, best 83-93 GFLOP/s, and the other 27 at 40-123, and the 200-measurement ResNet-18 run with
# transfer trailed the 1,000 without in the tasks it gave 4-8 measurements (results/transfer/znver3-s76/). Measured
# to 128 on the Zen 3 VM (results/transfer/znver3-s77/), the 1x1 sources reached 124-167 GFLOP/s, and ResNet-18's
# three 1x1/2 convs at 4 measurements each summed 366 us (409 from stop 76's corpus; 365 after 1,000 without).
CORPUS_CONV_TRIALS = 128
# and (stop 78) every dense layer of theirs: CorpusNet's and CorpusWideNet's heads joined the corpus with the dense
# template after their flows had spent their budgets, so only this floor measures them
CORPUS_DENSE_TRIALS = 128
STEM_CHANNELS = 4
STEM_RUN = "corpus-stem"  # the tuner name of part 1b's runs on stems (run ids: corpus-stem-s<seed>-<task hash>)
CONV_RUN = "corpus-conv"  # and on the other convolutions
DENSE_RUN = "corpus-dense"  # and on the dense layers
# each corpus model is tuned in both graphs ``tune --model --winograd`` builds: its 3x3 stride-1 convs direct
# (``off``) and as Winograd tasks (``auto``, the default), so that a whole-model run of either starts from
# records of its own templates. The second graph's remaining direct tasks (stems, strided, 1x1) are the first's:
# their records count toward its budget (the flow resumes them), so its Winograd tasks get the rest.
CORPUS_WINOGRAD = ("off", "auto")


def is_stem(workload: Any) -> bool:
    """A convolution on at most :data:`STEM_CHANNELS` input channels (a network's first layer, on RGB)."""
    c = conv_in_channels(workload)
    return c is not None and c <= STEM_CHANNELS


def corpus_ops() -> list[tuple[str, Any]]:
    """(name, workload) of the single layers, in measuring order."""
    return [(name, wl) for name, wl, _factor in _corpus_ops()]


def corpus_op_trials(op_trials: int) -> dict[str, int]:
    """Measurements of each single layer (by name) for ``--trials op_trials``."""
    return {name: op_trials * factor for name, _wl, factor in _corpus_ops()}


def _corpus_ops() -> list[tuple[str, Any, int]]:
    out: list[tuple[str, Any, int]] = []
    for shape in CORPUS_CONVS:
        c, h, w, k, kern, stride, pad = shape
        out.append((f"corpus:conv{c}x{h}-{k}k{kern}s{stride}", Conv2d.make(1, c, h, w, k, kern, stride, pad),
                    CORPUS_TRIALS_FACTOR.get(shape, 1)))
    for m, k, n in CORPUS_DENSES:
        out.append((f"corpus:dense{k}-{n}", Dense.make(m, k, n), 1))
    return out


def corpus_model(target: dict[str, Any], seed: int = 0, name: str = "corpusnet", winograd: str = "off") -> Any:
    import torch

    cls = CORPUS_MODELS[name]
    torch.manual_seed(seed)
    net = cls()
    randomize_batchnorm(net, seed)
    return apply_layout(import_torch(net, cls.input_shape, name), "auto", target, winograd=winograd)


def build_corpus(*, storage: Any, model_measurer: Any, op_measurer: Any, target: dict[str, Any], out: str,
                 model_trials: int = 640, op_trials: int = 32, seed: int = 0, recipe: str = "autotvm",
                 stem_trials: int = CORPUS_STEM_TRIALS, conv_trials: int = CORPUS_CONV_TRIALS,
                 dense_trials: int = CORPUS_DENSE_TRIALS,
                 status: Callable[[str], None] = lambda _m: None,
                 on_round: Callable[[int, TaskRow, int], None] | None = None, command: str = "") -> Corpus:
    """Measure (or resume) both parts into ``storage`` and write the corpus file ``out``
    (``model_trials`` measurements for each model of :data:`CORPUS_MODELS`, then each of their stems measured
    on its own until it has ``stem_trials`` records, every other convolution of theirs until it has
    ``conv_trials``, and every dense layer until it has ``dense_trials``)."""
    from tensortune.core.targets import device_name
    from tensortune.tuners import recipes
    from tensortune.tuners.loop import Budget, Tuner, make_run_id

    def tune_alone(task: Any, measurer: Any, trials: int, tuner: str) -> Any:  # one task, its own run
        strategy = recipes.create(recipe, task.space, seed, task=task)
        return Tuner(task, strategy, measurer, storage, Budget(trials=trials), tuner_name=tuner, seed=seed,
                     batch_size=16, remeasure_best=False).run()

    keys: list[tuple[str, str]] = []
    convs: dict[str, Any] = {}
    with model_measurer:
        for name, winograd in itertools.product(CORPUS_MODELS, CORPUS_WINOGRAD):
            graph = "Winograd 3x3 convs" if winograd == "auto" else "direct convs"
            status(f"part 1: the whole-model flow on {name}, {graph} ({model_trials} measurements, cold caches)")
            res = tune_model(corpus_model(target, seed, name, winograd), target, measurer=model_measurer,
                             storage=storage, recipe=recipe, trials=model_trials, seed=seed, on_round=on_round,
                             transfer=True, corpus=None)
            tuned = [r.task for r in res.rows if r.task is not None and r.template != MS_SPACE]
            keys += [(t.key, t.target_json) for t in tuned]
            convs.update({t.key: t for t in tuned if conv_in_channels(t.workload) is not None or t.template == DENSE})
        # part 1b: each convolution and dense layer to its floor (stems first, then convs by FLOPs, then dense
        # layers), cold caches
        for task in sorted(convs.values(), key=lambda t: (t.template == DENSE, not is_stem(t.workload), -t.flops)):
            stem = is_stem(task.workload)
            run, floor = ((DENSE_RUN, dense_trials) if task.template == DENSE else (STEM_RUN, stem_trials) if stem
                          else (CONV_RUN, conv_trials))
            own = make_run_id(task, run, seed)
            have = sum(r.run_id != own for r in storage.records(task.key, task.target_json, kind="trial"))
            n = max(0, floor - have)  # the task run's own budget: what the whole-model flow left to measure
            if n == 0:
                continue
            s = tune_alone(task, model_measurer, n, run)
            status(f"part 1b: {'the stem ' if stem and run == STEM_RUN else ''}{task.name}: {have} measurements in the whole-model flow, "
                   f"{s.trials} on its own, best {s.best_gflops:.1f} GFLOP/s"
                   + (f" ({s.resumed} resumed)" if s.resumed else ""))
    ops, trials = corpus_ops(), corpus_op_trials(op_trials)
    more = [n for n in trials if trials[n] > op_trials]
    status(f"part 2: {len(ops)} single layers, {op_trials} measurements each"
           + (f" ({max(trials.values())} for the {len(more)} stem-like shapes)" if more else "") + " (warm caches)")
    with op_measurer:
        for name, wl in ops:
            task = make_task(wl, default_template(wl.op, target["kind"]), target, name)
            s = tune_alone(task, op_measurer, trials[name], recipe)
            status(f"  {name}: {s.trials} measurements, best {s.best_gflops:.1f} GFLOP/s"
                   + (f" ({s.resumed} resumed)" if s.resumed else ""))
            keys.append((task.key, task.target_json))
    corpus = Corpus.from_storage(storage, device_name(),
                                 protocol={"model": model_measurer.protocol(), "single layers": op_measurer.protocol()},
                                 created=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"), command=command,
                                 keys=keys)
    size = corpus.save(out)
    status(f"wrote {out}: {corpus.n_records} records of {len(corpus.tasks_)} tasks, {size / 1e3:.0f} kB")
    return corpus
