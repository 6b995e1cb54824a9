"""``tensortune bench transfer``: leave-one-layer-out transfer on the ground-truth tables (replay).

Each held-out layer is tuned from an empty database ("without") and with a transfer prior built from
the other layers' tables ("with": the cost model learns from them, the first configs are their best
ones mapped onto the layer's space). The figure per layer, recipe and mode is how many measurements
a run needs to reach 95% of the table's optimum, median over the seeds, and the best found at the
budget. Replay answers from the tables, so this measures search efficiency, not this machine; the
tables say which machine measured them (``machine`` in each table).

With ``live`` layers (evaluation layers without a table: L3-L6 hold 4,800-18,816 configs each, hours to
measure completely), each of them is held out on this CPU instead: its runs measure real kernels (the
tables' protocol), their sources are every table layer, and the figure is how many measurements a run
needs to reach 95% of the best config any run of the layer found. A live measurement is noisy (two
identical searches ended 5-10% apart, stop 33), so the best in-run figure is itself a lucky draw: once
every run of a live layer is done, each run's ``confirm_top`` best configs are measured again,
``confirm_rounds`` times in interleaved rounds, and the figures count against those medians (a run
reaches when it first measured a config whose confirmed median is within 95% of the best confirmed one).
Each run's 8 best, 7 rounds (since stop 49; 3 and 3 before): with 3 and 3, first measurements read up to 1.18x
the confirmed optimum, a run's early good config often fell outside its 3 best by such a draw, and the optimum
was the best of about 33 three-round medians; the same command with 8 and 7 (stop 49,
``results/transfer/loo-znver5-s49/live``) put held-out L4 at 66 against 6 measurements with transfer where
3 and 3 had said > 120 for both.

Results go to ``results.json`` (a rerun with the same settings resumes), ``report.md`` and ``curves.png``
(each held-out layer's best share of its optimum against measurements, without and with transfer);
:func:`load_transfer_results` reads a finished file back, for ``--report-only``.
"""

from __future__ import annotations

import json
import math
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.bench.report import plot_band, pyplot, save_figure, table, write_markdown
from tensortune.bench.results import ResultsFile, commands_of
from tensortune.core.stats import median, trials_to_reach

# what a transferred run learns from: the other tables on knob features, on MetaSchedule's PerStoreFeature,
# or on knob features with the shipped corpus of the tables' CPU as further sources (as an empty database has it)
FEATURES = ("knobs", "schedule", "knobs+corpus")


@dataclass
class TransferConfig:
    layers: list[str] = field(default_factory=lambda: ["L1", "L2", "L7", "L8"])
    recipes: list[str] = field(default_factory=lambda: ["autotvm", "chameleon"])
    seeds: list[int] = field(default_factory=lambda: list(range(9)))
    trials: int = 200
    reach: float = 0.95
    tables: str | None = None  # a table directory; None: the package's tables
    # what the cost model of a "with" run sees: the knob features ("knobs", transfer/features.py) and/or
    # MetaSchedule's PerStoreFeature of each config's program ("schedule", transfer/schedule_features.py),
    # and/or the knob features with the shipped corpus as sources beside the tables ("knobs+corpus")
    features: list[str] = field(default_factory=lambda: ["knobs"])
    # evaluation layers without a table, held out live on this CPU (sources: every layer of ``layers``)
    live: list[str] = field(default_factory=list)
    # live layers only: each run's best configs measured again, in interleaved rounds, once all runs are done
    confirm_top: int = 8
    confirm_rounds: int = 7
    # live layers only: that confirmation repeated in this many passes, each with a fresh measurer, pass p of
    # every live layer before pass p + 1 of any, and at least ``confirm_gap`` seconds from a layer's pass to its
    # next; a config's figure is the median of its passes' medians (stop 95: one 90 s pass of L3 fell inside a
    # minutes-long phase that slowed some tile shapes 2.5x, and decided whether transfer met its goal)
    confirm_passes: int = 3
    confirm_gap: float = 0.0
    # live layers only: each run's incumbents (every config that read faster than all the run had measured
    # before it) are confirmed beside its best configs. A run that finds many good configs early pushes its
    # first good ones out of its top ``confirm_top`` by later, noisier readings, so without them a live run is
    # credited later than it found a good config, and more so the more good configs it finds (stop 101)
    confirm_incumbents: bool = True

    def __post_init__(self) -> None:
        from tensortune.bench.groundtruth import available_tables
        from tensortune.tuners.recipes import learns_from_other_tasks

        have = set(available_tables(self.tables))
        missing = [x for x in self.layers if x not in have]
        if missing or len(self.layers) < 2:
            raise ValueError(f"transfer needs at least two layers with tables; missing: {missing or 'none'} "
                             f"(have in {self.tables or 'the package'}: {', '.join(sorted(have)) or 'none'})")
        for r in self.recipes:
            if not learns_from_other_tasks(r):
                raise ValueError(f"{r} is not a model-based recipe or ml2tuner (transfer shapes a cost model)")
        bad = [f for f in self.features if f not in FEATURES]
        if bad or not self.features:
            raise ValueError(f"--features takes {', '.join(FEATURES)}; not {', '.join(bad) or 'nothing'}")
        if self.trials < 1 or not self.seeds or not 0 < self.reach <= 1 or self.confirm_top < 1 \
                or self.confirm_rounds < 1 or self.confirm_passes < 1 or not self.confirm_gap >= 0:
            raise ValueError("transfer needs a positive budget, a seed, 0 < reach <= 1, and at least one config, "
                             "one round and one pass to confirm, with a gap of 0 seconds or more")
        from tensortune.workloads.layer_tables import EVAL_LAYERS

        bad_live = [x for x in self.live if x not in EVAL_LAYERS or x in self.layers]
        if bad_live:
            raise ValueError(f"--live takes evaluation layers ({', '.join(EVAL_LAYERS)}) not among --layers; "
                             f"not {', '.join(bad_live)}")
        if self.live and "schedule" in self.features:
            raise ValueError("--features schedule is for replay: a live search would pay 10-27 ms a candidate "
                             "for PerStoreFeature; hold live layers out with knobs or knobs+corpus")


def run_one(held: Any, sources: list[Any], recipe: str, seed: int, trials: int, transfer: bool,
            schedule_cache: str | None = None, corpus: Any = None) -> dict[str, Any]:
    """One replayed run on table ``held``: its best-so-far curve (GFLOP/s) and wall time. With
    ``schedule_cache`` (a directory for the features), the cost model learns on PerStoreFeature; with
    ``corpus``, the corpus's tasks are sources too."""
    from tensortune.measure.replay import ReplayMeasurer

    return _search(held.task, ReplayMeasurer([held]), sources, recipe, seed, trials, transfer,
                   schedule_cache=schedule_cache, corpus=corpus)


def run_live(layer: str, sources: list[Any], recipe: str, seed: int, trials: int, transfer: bool,
             corpus: Any = None, keep_top: int = 3) -> dict[str, Any]:
    """One run on evaluation layer ``layer`` measured on this CPU (the ground-truth template, target and
    timing protocol, so its records are what a table of it would hold); sources as :func:`run_one`. The
    result keeps the run's ``keep_top`` best configs (``top``: config index, the measurement that first
    ran it, GFLOP/s then) for :func:`confirm_live`, every config it measured, in order (``measured``),
    for :func:`live_reach`, and what each of those measurements read (``readings``, GFLOP/s, 0 for a
    failure): set against the confirmed medians, they show whether a run was measured in a slow phase of
    the machine."""
    from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task

    task = groundtruth_task(layer)
    with groundtruth_measurer(task) as m:
        return _search(task, m, sources, recipe, seed, trials, transfer, corpus=corpus, keep_top=keep_top)


def _search(task: Any, measurer: Any, sources: list[Any], recipe: str, seed: int, trials: int, transfer: bool,
            schedule_cache: str | None = None, corpus: Any = None, keep_top: int = 0) -> dict[str, Any]:
    from tensortune.storage import SQLiteStorage
    from tensortune.transfer import TransferPrior
    from tensortune.tuners import Budget, Tuner, create

    prior = (TransferPrior.from_tables(task, sources, seed, schedule_cache=schedule_cache, corpus=corpus)
             if transfer else None)
    t0 = time.perf_counter()
    strat = create(recipe, task.space, seed, transfer=prior or None, task=task)
    with tempfile.TemporaryDirectory(prefix="tensortune-transfer-") as d:
        storage = SQLiteStorage(Path(d) / "r.db")
        s = Tuner(task, strat, measurer, storage, Budget(trials=trials),
                  tuner_name=recipe, seed=seed, remeasure_best=False,
                  initial_configs=prior.initial_configs() if prior else None).run()
        recs = storage.records(task.key, task.target_json, s.run_id, kind="trial")
        storage.close()
    kept = {"top": _top_configs(recs, task.flops, keep_top), "measured": [int(r.config_index) for r in recs],
            "readings": [round(task.flops / r.cost / 1e9, 4) if r.ok else 0.0 for r in recs]}
    return {"curve": [round(v, 4) for v in s.curve], "wall_s": time.perf_counter() - t0,
            "sources": [src.name for src in prior.sources] if prior else [], **(kept if keep_top else {})}


def _top_configs(records: list[Any], flops: float, k: int) -> list[list[float]]:
    """The ``k`` fastest distinct configs of a run's records: [config index, the 1-based measurement that
    first ran it, its best GFLOP/s in the run]."""
    first: dict[int, int] = {}
    best: dict[int, float] = {}
    for i, r in enumerate(records, 1):
        first.setdefault(r.config_index, i)
        if r.ok:
            best[r.config_index] = max(best.get(r.config_index, 0.0), flops / r.cost / 1e9)
    ranked = sorted(best, key=lambda c: -best[c])[:k]
    return [[c, first[c], round(best[c], 4)] for c in ranked]


def confirm_live(task: Any, measurer: Any, configs: list[int], rounds: int) -> dict[str, float]:
    """Measure ``configs`` (indices of ``task``'s space) again, ``rounds`` times in interleaved rounds
    (each round in another order), and return each one's median GFLOP/s (0 for a config that fails)."""
    from tensortune.core.values import MeasureInput

    got: dict[int, list[float]] = {c: [] for c in configs}
    order = list(configs)
    for r in range(rounds):
        turn = order[r % len(order):] + order[:r % len(order)] if order else []
        for c, res in zip(turn, measurer.measure([MeasureInput(task, task.space.config(c)) for c in turn]),
                          strict=True):
            got[c].append(task.flops / res.cost / 1e9 if res.ok else 0.0)
    return {str(c): round(float(statistics.median(v)), 4) for c, v in got.items()}


def incumbents(run: dict[str, Any]) -> list[int]:
    """A live run's incumbents, in the order it measured them: each config whose reading was faster than
    every reading before it (its best-so-far curve's steps by its own readings). Empty for a run from
    before ``readings`` were kept."""
    if "readings" not in run:
        return []
    best, out = 0.0, []
    for c, v in zip(run["measured"], run["readings"], strict=True):
        if v > best:
            best = v
            out.append(int(c))
    return out


def confirm_set(runs: list[dict[str, Any]], with_incumbents: bool) -> list[int]:
    """The configs a live layer's confirmation measures: every run's best configs (``top``) and, with
    ``with_incumbents``, every run's :func:`incumbents`."""
    want = {int(c) for r in runs for c, _, _ in r.get("top", [])}
    if with_incumbents:
        want |= {c for r in runs for c in incumbents(r)}
    return sorted(want)


def combine_passes(passes: list[dict[str, float]]) -> dict[str, float]:
    """One figure per config from several confirmation passes: the median of its passes' medians (with
    three passes, one that fell inside a slow phase of the machine does not decide it)."""
    return {c: round(float(statistics.median(p[c] for p in passes)), 4) for c in passes[0]}


def _confirm_passes(res: ResultsFile, cfg: TransferConfig, progress: bool) -> None:
    """Confirm every live layer's runs' best configs in ``cfg.confirm_passes`` passes (see
    :class:`TransferConfig`), kept per layer in ``confirmed_passes`` (each pass: its medians, when it
    started and ended) and combined into ``confirmed``. A layer whose set of configs changed (more runs)
    is confirmed afresh; passes already stored count (a resumed or extended file); a file confirmed
    before passes existed holds its one pass in ``confirmed``."""
    from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task

    doc = res.doc
    confirmed, passes = doc.setdefault("confirmed", {}), doc.setdefault("confirmed_passes", {})
    want: dict[str, list[int]] = {}
    # incumbents come from a run's readings: a file from before they were kept (stop 97) has none to add, and its
    # report must not say they were confirmed
    with_incumbents = bool(cfg.confirm_incumbents) and any(
        "readings" in r for r in doc["runs"] if r["layer"] in cfg.live)
    for name in cfg.live:
        want[name] = confirm_set([r for r in doc["runs"] if r["layer"] == name], with_incumbents)
        if name in confirmed and name not in passes:
            passes[name] = [{"medians": confirmed[name]}]
        if sorted(int(c) for c in (passes.get(name) or [{"medians": {}}])[0]["medians"]) != want[name]:
            if passes.get(name):  # kept, not lost: the passes of the set before (fewer runs, or without incumbents)
                doc.setdefault("superseded_passes", {}).setdefault(name, []).append(passes[name])
            passes[name] = []
    doc["confirm_incumbents"] = with_incumbents
    for p in range(cfg.confirm_passes):
        for name in (x for x in cfg.live if want[x] and len(passes[x]) == p):
            last = passes[name][-1].get("ended_s") if passes[name] else None
            wait = (last + cfg.confirm_gap - time.time()) if last is not None else 0.0
            if wait > 0:
                if progress:
                    print(f"  {name}: waiting {wait:.0f} s before confirmation pass {p + 1} (--confirm-gap)", flush=True)
                time.sleep(wait)
            if progress:
                print(f"  {name}: measuring the runs' {len(want[name])} best configs"
                      f"{' and incumbents' if with_incumbents else ''} again, {cfg.confirm_rounds} "
                      f"rounds (pass {p + 1} of {cfg.confirm_passes})", flush=True)
            started = time.strftime("%Y-%m-%d %H:%M:%S")
            task = groundtruth_task(name)
            with groundtruth_measurer(task) as m:  # a fresh measurer (worker pools) per pass
                got = confirm_live(task, m, want[name], cfg.confirm_rounds)
            passes[name].append({"medians": got, "started": started, "ended": time.strftime("%Y-%m-%d %H:%M:%S"),
                                 "ended_s": time.time()})
            res.save()
    for name in cfg.live:
        if passes[name]:
            confirmed[name] = combine_passes([x["medians"] for x in passes[name]])
        else:
            confirmed.pop(name, None)
    res.save()


def live_reach(run: dict[str, Any], confirmed: dict[str, float], target: float,
               own_top: bool = False) -> tuple[int | None, float]:
    """A live run's figures against confirmed medians: the measurement that first ran a config whose
    confirmed median is at least ``target`` (None if none did), and the best confirmed median among its
    top configs.

    A run that kept every config it measured (``measured``, in order) is credited as replay credits a
    run: at the first measurement of any config that confirmed within the target, whichever run's best
    configs put it in the confirmed set, even if the run's own reading of it was low. ``own_top`` (and
    runs from before ``measured`` was kept) credit only the run's own best configs by its in-run
    figures: the configs its build would pick from."""
    best = max((confirmed.get(str(int(c)), 0.0) for c, _, _ in run["top"]), default=0.0)
    if not own_top and "measured" in run:
        at = next((i for i, c in enumerate(run["measured"], 1) if confirmed.get(str(int(c)), 0.0) >= target), None)
        return at, best
    hits = [at for c, at, _ in run["top"] if confirmed.get(str(int(c)), 0.0) >= target]
    return (int(min(hits)) if hits else None), best


def share_curve(run: dict[str, Any], opt: float, confirmed: dict[str, float] | None = None) -> np.ndarray:
    """A run's best share of the layer's optimum ``opt`` after each of its measurements, as the report
    credits it: a replayed run's best-so-far curve over ``opt``; a live run that kept the configs it
    measured, with ``confirmed`` medians, the best confirmed median among the configs measured so far (a
    config that was not confirmed counts 0), so the curve first reaches a share where :func:`live_reach`
    credits the run. A live run from before ``measured`` was kept: its in-run best-so-far readings."""
    if confirmed and "measured" in run:
        got = np.array([confirmed.get(str(int(c)), 0.0) for c in run["measured"]], dtype=float)
        return np.maximum.accumulate(got) / opt
    return np.asarray(run["curve"], dtype=float) / opt


def run_phase(run: dict[str, Any], confirmed: dict[str, float]) -> float | None:
    """How a live run's own readings compare with the confirmation: the median, over its measurements of
    configs that confirmed (above 0), of the reading over that config's confirmed median. Near 1 the run
    read its configs as the confirmation did; well below 1 it was measured in a slow phase of the machine
    (or the confirmation in a fast one). None for a run without ``readings`` or with no confirmed config."""
    if "readings" not in run:
        return None
    ratios = [v / confirmed[str(int(c))] for c, v in zip(run["measured"], run["readings"], strict=True)
              if confirmed.get(str(int(c)), 0.0) > 0 and v > 0]
    return float(statistics.median(ratios)) if ratios else None


def run_transfer(cfg: TransferConfig, out: Path, command: str = "", progress: bool = True) -> dict[str, Any]:
    from tensortune.bench.groundtruth import load_table
    from tensortune.transfer.corpus import default_corpus

    conf = asdict(cfg)
    # how often, and which of, the runs' configs are confirmed is not what the runs are: a rerun with more passes
    # extends a file (passes kept per layer), one with another set confirms it afresh (the old passes are kept)
    for k in ("confirm_passes", "confirm_gap", "confirm_incumbents"):
        del conf[k]
    if not cfg.live:  # results written before --live existed resume
        for k in ("live", "confirm_top", "confirm_rounds"):
            del conf[k]
    res = ResultsFile(out / "results.json", conf, command, sections=("runs",))
    tables = {name: load_table(name, cfg.tables) for name in cfg.layers}
    corpus = None
    if "knobs+corpus" in cfg.features:  # the corpus of the CPU the tables were measured on, if shipped
        cpus = {gt.meta.get("machine", {}).get("llvm_cpu") for gt in tables.values()}
        corpus = default_corpus(next(iter(cpus)) if len(cpus) == 1 and None not in cpus else None)
        if corpus is None:
            raise ValueError("--features knobs+corpus: this install ships no corpus")
        res.doc["corpus"] = corpus.describe()
    for seed in cfg.seeds:  # seeds outermost, modes interleaved
        for held in [*cfg.layers, *cfg.live]:
            live = held in cfg.live
            others = [tables[x] for x in cfg.layers if x != held]
            for recipe in cfg.recipes:
                for transfer, feats in [(False, None)] + [(True, f) for f in cfg.features]:
                    if any(_features(x) == feats
                           for x in res.find_all("runs", layer=held, recipe=recipe, seed=seed, transfer=transfer)):
                        continue
                    use = corpus if feats == "knobs+corpus" else None
                    if live:
                        r = run_live(held, others, recipe, seed, cfg.trials, transfer, corpus=use,
                                     keep_top=cfg.confirm_top)
                    else:
                        cache = str(out / "schedule-features") if feats == "schedule" else None
                        r = run_one(tables[held], others, recipe, seed, cfg.trials, transfer, schedule_cache=cache,
                                    corpus=use)
                    res.add("runs", {"layer": held, "recipe": recipe, "seed": seed, "transfer": transfer,
                                     **({"features": feats} if transfer else {}), **({"live": True} if live else {}),
                                     **r})
                    if progress:
                        print(f"  {held} {recipe:10s} seed {seed} "
                              f"{f'with transfer ({feats})' if transfer else 'without transfer'}: "
                              f"best {r['curve'][-1]:.1f} GFLOP/s", flush=True)
    res.doc["optimum"] = {name: float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
                          for name, gt in tables.items()}
    if cfg.live:
        _confirm_passes(res, cfg, progress)
    for name in cfg.live:  # no table: the best config any run of the layer found, measured again
        runs = [r for r in res.doc["runs"] if r["layer"] == name]
        conf = res.doc.get("confirmed", {}).get(name)
        res.doc["optimum"][name] = max(conf.values()) if conf else max(r["curve"][-1] for r in runs)
    res.doc["machines"] = {name: gt.meta.get("machine", {}) for name, gt in tables.items()}
    if cfg.live:
        from tensortune.bench.groundtruth import machine_description

        res.doc["live_machine"] = machine_description()
    res.finish()
    return res.doc


def _features(run: dict[str, Any]) -> str | None:
    """The features a run's cost model learned on (None without transfer; results from before the
    option were knob features)."""
    return run.get("features", "knobs") if run["transfer"] else None


def _cell_runs(doc: dict[str, Any], layer: str, recipe: str, feats: str, transfer: bool) -> list[dict[str, Any]]:
    """The runs of one report cell (layer, recipe, with or without transfer on ``feats``), by seed."""
    return sorted((r for r in doc["runs"] if r["layer"] == layer and r["recipe"] == recipe
                   and _features(r) == (feats if transfer else None)), key=lambda r: r["seed"])


GOAL_FACTOR = 5  # the transfer issue's goal: at most 1/5 of the measurements without transfer


def _cell_figures(runs: list[dict[str, Any]], conf: dict[str, float] | None, target: float,
                  opt: float) -> tuple[float, int, float]:
    """One report cell's runs: the median over seeds of the measurements to ``target`` (a run that never
    reaches counts as infinite; NaN without runs), how many reached, and the median best as a share of
    ``opt``. A live layer's runs (with ``conf``, confirmed medians) count against those; replayed runs
    against their curves."""
    if conf and all("top" in r for r in runs):
        figs = [live_reach(r, conf, target) for r in runs]
        hits, bests = [h for h, _ in figs], [b / opt for _, b in figs]
    else:
        hits = [trials_to_reach(r["curve"], target) for r in runs]
        bests = [r["curve"][-1] / opt for r in runs]
    # core.stats.median would skip a run that never reaches
    fig = statistics.median([h if h is not None else float("inf") for h in hits]) if hits else float("nan")
    return fig, sum(h is not None for h in hits), median(bests)


def goal_met(without: float, with_: float, trials: int) -> bool:
    """Whether ``with_`` measurements (to reach) are at most 1/GOAL_FACTOR of ``without``; a cell without
    transfer that never reached counts as ``trials + 1``, so it is met only when with_ fits 1/5 of that."""
    if not np.isfinite(with_):
        return False
    return with_ * GOAL_FACTOR <= (without if np.isfinite(without) else trials + 1)


def _reach_cell(n: float, trials: int) -> str:
    """A cell's median measurements to reach, or '> trials' when the median run never reached."""
    return f"{n:.0f}" if np.isfinite(n) else f"> {trials}"


def fewer_cell(without: float, with_: float, trials: int) -> str:
    """How many times fewer measurements transfer needed: without / with, or a lower bound when the runs
    without transfer never reached (their median is beyond the budget), '-' when with never reached."""
    if not np.isfinite(with_) or not with_:
        return "-"
    return f"{without / with_:.1f}x" if np.isfinite(without) else f"> {trials / with_:.1f}x"


def load_transfer_results(out: Path) -> dict[str, Any]:
    """The results file a ``bench transfer`` run wrote into ``out``, to write its report again without
    measuring; ValueError (with what is wrong) if there is none or it is not one."""
    path = out / "results.json"
    if not path.is_file():
        raise ValueError(f"--report-only: no {path} (a `bench transfer` run writes it into --out)")
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"--report-only: {path} cannot be read ({e})") from None
    cfg = doc.get("config") if isinstance(doc, dict) else None
    if not isinstance(cfg, dict) or not {"layers", "recipes", "trials", "reach"} <= set(cfg) \
            or not isinstance(doc.get("runs"), list) or "optimum" not in doc:
        raise ValueError(f"--report-only: {path} is not a finished `bench transfer` results file")
    return doc


def write_transfer_report(doc: dict[str, Any], out: Path) -> Path:
    cfg = doc["config"]
    reach = cfg["reach"]
    rows = []
    live = cfg.get("live", [])
    for layer in [*cfg["layers"], *live]:
        opt = doc["optimum"][layer]
        for recipe, feats in ((r, f) for r in cfg["recipes"] for f in cfg.get("features", ["knobs"])):
            cells = [f"{layer} (live)" if layer in live else layer, recipe, feats]
            fig = {}
            for transfer in (False, True):
                runs = _cell_runs(doc, layer, recipe, feats, transfer)
                fig[transfer], reached, best = _cell_figures(runs, doc.get("confirmed", {}).get(layer), reach * opt, opt)
                srcs = sorted({s for r in runs for s in r["sources"]})
                cells += [_reach_cell(fig[transfer], cfg["trials"]),
                          f"{reached}/{len(runs)}", f"{best:.1%}"]
                if transfer:
                    cells.append(", ".join(srcs) or "none similar enough")
            cells.append(fewer_cell(fig[False], fig[True], cfg["trials"]))
            rows.append(cells)
    head = ["held out", "recipe", "with: features (+ sources)", f"without: to {reach:.0%}", "reached", "best",
            f"with: to {reach:.0%}", "reached", "best", "sources", "fewer measurements"]
    machines = {f"{m.get('cpu_model', m.get('cpu', '?'))} ({m.get('llvm_cpu', 'LLVM CPU not recorded')})"
                for m in doc.get("machines", {}).values()}
    lines = ["# Transfer learning: leave one layer out (ground-truth tables, replay)", "",
             f"Command: `{commands_of(doc)}`", "",
             f"Budget {cfg['trials']} measurements, seeds {cfg['seeds']}; figures are medians over seeds of the "
             f"measurements needed to reach {reach:.0%} of the held-out table's optimum (a run that never does counts "
             "as infinite), and of the best found at the budget as a share of the optimum. 'With': the cost model "
             "also learns from the other layers' tables (a source weighs by its shape similarity; a source below "
             "0.01 is left out) and the first configs are their best ones mapped onto the layer's space; the cost "
             "model sees the knob features ('knobs') or MetaSchedule's PerStoreFeature of each config's program "
             "('schedule'); 'knobs+corpus': knob features, and the shipped corpus's tasks are sources beside the "
             f"tables ({doc.get('corpus', 'no corpus')}; it weighs 1/(1 + n/512) for the n records the tables give, "
             "as in a run on a database of n records). Replay "
             f"answers from the tables (measured on: {', '.join(sorted(map(str, machines)))}).", ""]
    if live:
        m = doc.get("live_machine", {})
        optima = ", ".join(f"{x}: {doc['optimum'][x]:.1f} GFLOP/s" for x in live)
        conf = doc.get("confirmed", {})
        lines += [f"Layers marked (live) have no table: their runs measured real kernels on {m.get('cpu', '?')} "
                  f"({m.get('llvm_cpu', 'LLVM CPU not recorded')}) with the tables' protocol, their sources are all "
                  "the table layers, and their optimum is the best config any run of the layer found "
                  f"({optima}).", ""]
        if conf:
            k = {len(doc.get("confirmed_passes", {}).get(x, [])) or 1 for x in live if x in conf}
            npass = (f", in {'/'.join(map(str, sorted(k)))} passes (a config's figure: the median of its passes' medians)"
                     if k != {1} else "")
            inc = (" and its incumbents (each config that read faster in the run than everything it had measured "
                   "before)" if doc.get("confirm_incumbents") else "")
            lines += [f"Confirmed ({', '.join(x for x in live if x in conf)}): once every run was done, each run's "
                      f"{cfg.get('confirm_top', 3)} best configs{inc} "
                      f"({', '.join(f'{x}: {len(conf[x])}' for x in live if x in conf)} "
                      f"distinct) were measured again in {cfg.get('confirm_rounds', 3)} interleaved rounds{npass}; the "
                      "optimum is the best median, a run reaches at the measurement that first ran a config whose median is "
                      f"within {reach:.0%} of it (any config it measured that is in the confirmed set, as replay "
                      "credits; per seed below, also counted at its own best configs only), and 'best' is the best "
                      "median among the run's configs.", ""]
    lines += [table(head, rows), ""]
    if plot_transfer_curves(doc, out / "curves.png"):
        lines += [f"![best share of each held-out layer's optimum against measurements, without and with transfer: "
                  f"median and range over seeds; the dotted line is {reach:.0%}](curves.png)", "",
                  "In the figure (`curves.png`): each held-out layer's best share of its optimum after each "
                  "measurement, median over seeds (line) and range (band), without transfer dashed and with it "
                  "solid; a live layer's runs count by their configs' confirmed medians, as the table does. The "
                  "legend gives each cell's median measurements to the dotted line.", ""]
    lines += _live_passes(doc, reach)
    lines += _live_per_seed(doc, reach)
    return write_markdown(out, lines)


def plot_transfer_curves(doc: dict[str, Any], path: Path) -> bool:
    """One panel per held-out layer: each cell's runs as :func:`share_curve` (median and range over seeds,
    up to the shortest run), a colour per line (recipe, with or without transfer, features), without
    transfer dashed, with it solid, and the reach as a dotted line; the legend gives the cell's median
    measurements to reach. False (nothing written) without runs."""
    cfg = doc["config"]
    reach, trials = cfg["reach"], cfg["trials"]
    live = cfg.get("live", [])
    layers = [x for x in [*cfg["layers"], *live] if any(r["layer"] == x for r in doc["runs"])]
    if not layers:
        return False
    plt = pyplot()
    ncols = min(4, len(layers))
    nrows = math.ceil(len(layers) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.4 * nrows), squeeze=False)
    cells = [(r, f) for r in cfg["recipes"] for f in cfg.get("features", ["knobs"])]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    # a colour per line, the same in every panel: each recipe without transfer, then with each features
    keys = [f"{r} {m}" for r in cfg["recipes"] for m in ["without", *cfg.get("features", ["knobs"])]]
    for ax, layer in zip(axes.flat, layers, strict=False):
        opt, conf = doc["optimum"][layer], doc.get("confirmed", {}).get(layer)
        drawn: set[str] = set()
        for recipe, feats in cells:
            for transfer in (False, True):
                runs = _cell_runs(doc, layer, recipe, feats, transfer)
                key = f"{recipe} {feats if transfer else 'without'}"
                if not runs or key in drawn:  # the runs without transfer serve every features cell of a recipe
                    continue
                colour = colours[keys.index(key) % len(colours)]
                drawn.add(key)
                curves = [share_curve(r, opt, conf) for r in runs]
                n = min(len(c) for c in curves)
                if n == 0:
                    continue
                at = _cell_figures(runs, conf, reach * opt, opt)[0]
                what = f"with ({feats})" if transfer else "without"
                plot_band(ax, np.array([c[:n] for c in curves]), f"{recipe} {what}: {_reach_cell(at, trials)}",
                          color=colour, ls="-" if transfer else "--")
        ax.axhline(reach, color="k", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlim(1, trials)
        ax.set_ylim(0.4, 1.02)
        ax.set_title(f"{layer} ({'live' if layer in live else 'replay'}), {len(cfg['seeds'])} seeds", fontsize=10)
        ax.set_xlabel("measurements")
        ax.set_ylabel("best share of the optimum")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right", title=f"measurements to {reach:.0%}", title_fontsize=7)
    for ax in list(axes.flat)[len(layers):]:
        ax.axis("off")
    save_figure(fig, path)
    return True


def _live_passes(doc: dict[str, Any], reach: float) -> list[str]:
    """Live layers confirmed in more than one pass: each pass's optimum and figures on its own, how far a
    config's medians moved between passes, and whether the goal (1/GOAL_FACTOR of the measurements) holds
    in every pass, in none, or only in some: a cell decided by which pass one reads is not shown."""
    cfg, passes = doc["config"], doc.get("confirmed_passes", {})
    layers = [x for x in cfg.get("live", []) if len(passes.get(x, [])) > 1]
    if not layers:
        return []
    lines = ["Live layers confirmed in several passes (each with a fresh measurer; pass p of every live layer "
             "before pass p + 1; the table above counts against the median of a config's pass medians). Per "
             f"pass: measurements to {reach:.0%} of that pass's own optimum, without / with transfer (median over "
             f"seeds), '(met)' where with is at most 1/{GOAL_FACTOR} of without (without never reaching counts as the "
             "budget + 1).", ""]
    for layer in layers:
        meds = [x["medians"] for x in passes[layer]]
        per_config = {c: [m[c] for m in meds] for c in meds[0]}
        moved = sorted((max(v) / min(v), c) for c, v in per_config.items() if min(v) > 0)
        when = ", ".join(x["started"][-8:] if x.get("started") else "before passes were kept" for x in passes[layer])
        spread = (f"a config's fastest pass over its slowest: median {statistics.median(r for r, _ in moved):.2f}x, "
                  f"at most {moved[-1][0]:.2f}x (config {moved[-1][1]})" if moved else "no config ran in every pass")
        lines.append(f"- {layer}: {len(meds)} passes (started {when}); optimum per pass "
                     f"{', '.join(f'{max(m.values()):.1f}' for m in meds)} GFLOP/s; {spread}.")
    lines.append("")
    n = max(len(passes[x]) for x in layers)
    rows = []
    for layer in layers:
        meds = [x["medians"] for x in passes[layer]]
        for recipe, feats in ((r, f) for r in cfg["recipes"] for f in cfg.get("features", ["knobs"])):
            cells, met = [layer, recipe, feats], []
            for m in meds:
                opt = max(m.values())
                fig = {t: _cell_figures(_cell_runs(doc, layer, recipe, feats, t), m, reach * opt, opt)[0]
                       for t in (False, True)}
                ok = goal_met(fig[False], fig[True], cfg["trials"])
                met.append(ok)
                cells.append(" / ".join(_reach_cell(v, cfg["trials"]) for v in fig.values()) + (" (met)" if ok else ""))
            cells += [""] * (n - len(meds))  # a layer with fewer passes than another
            cells.append("every pass" if all(met) else "no pass" if not any(met) else
                         f"{sum(met)} of {len(met)} passes: decided by the pass")
            rows.append(cells)
    head = ["live layer", "recipe", "with: features", *[f"pass {i + 1}" for i in range(n)], "goal met in"]
    return [*lines, table(head, rows), ""]


def _live_per_seed(doc: dict[str, Any], reach: float) -> list[str]:
    """Live layers' runs per seed, credited two ways: at the first measured config that confirmed (the
    table's figures; as replay credits) and only at the run's own best configs by its in-run readings
    (what its build would pick from: a config that read low in the run counts there only if it was
    among them). Runs from before ``measured`` was kept read the same both ways."""
    cfg, conf = doc["config"], doc.get("confirmed", {})
    rows = []
    for layer in (x for x in cfg.get("live", []) if x in conf):
        target = reach * doc["optimum"][layer]
        for recipe, feats in ((r, f) for r in cfg["recipes"] for f in cfg.get("features", ["knobs"])):
            cells = [layer, recipe, feats]
            for transfer in (False, True):
                runs = [r for r in _cell_runs(doc, layer, recipe, feats, transfer) if "top" in r]
                for own in (False, True):
                    figs = [live_reach(r, conf[layer], target, own_top=own)[0] for r in runs]
                    cells.append(", ".join("-" if h is None else str(h) for h in figs) or "-")
                phases = [run_phase(r, conf[layer]) for r in runs]
                cells.append(", ".join("-" if v is None else f"{v:.2f}" for v in phases) or "-")
            rows.append(cells)
    if not rows:
        return []
    head = ["live layer", "recipe", "with: features", "without: first measured", "without: own top",
            "without: read at", "with: first measured", "with: own top", "with: read at"]
    return [f"Live layers per seed (seeds {cfg['seeds']}; '-' never reached {reach:.0%}): 'first measured' credits "
            "a run at the first measurement of any config whose confirmed median is within reach (as replay does, "
            "and as the table above counts); 'own top' only at the run's own best configs by its in-run readings, "
            "the ones its build would choose from, so noise that hid a good config counts against the run there. "
            "'read at': the median of the run's readings of confirmed configs over their confirmed medians (well "
            "below 1: the run was measured in a slow phase of the machine; '-' for runs from before readings "
            "were kept).",
            "", table(head, rows), ""]
