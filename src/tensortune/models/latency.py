"""Whole-model latency of written libraries against each other and against ONNX Runtime / PyTorch, with
a paired statistic for "is library A at least as fast as library B" (issue 19's 5x goal: a build tuned
with transfer at 200 measurements against one without at 1,000).

Protocol (since stop 81): every round starts a fresh process per contender, in an order drawn from
(``order_seed``, round), with a pause before each start. A process loads the library as a user deploys it
(the TVM runtime alone, ``models.peers._library_server``) or builds the peer's session and answers with
its output. Once all are up, each runs one discarded repeat of ``min_repeat_ms``; then the round makes
``repeats`` passes, every pass one repeat of each contender in turn (the model back to back for at least
``min_repeat_ms``, the mean per call), the order reversed every other pass. After every repeat the round
waits until that process uses no CPU (at most ``settle_s``): a TVM library's thread pool spins 200-250 ms
of a core after its work, ONNX Runtime's 60 ms, and on 2 cores that slowed the next contender (stop 81's
first interleaved set, which waited 20 ms: ONNX Runtime at 79-97 ms against 24-28 otherwise, and the pairs'
per-round log ratios at sd 0.085-0.093). A contender's figure for the round is the median of its repeats; then
every process of the round is stopped. Each contender's output is checked against PyTorch's on the weights
of its seed at its first round; a library that computes something else stops the benchmark (its times
would mean nothing).

Why this protocol: on a shared VM the host's speed moves by more than the differences between tuned
libraries (stop 68: a library's rounds spread 24-106% from fastest to slowest; stop 80: 59-130%), and it
moves within seconds. Until stop 80 every measurement was a process of its own, one after the other, so
the two libraries of a pair were timed seconds apart: the per-round log ratio of two ResNet-18 libraries
had a standard deviation of 0.13-0.27 in stop 80's three 24-round sets on a noisy host (sgemm 97-176
GFLOP/s; 0.034-0.085 in stop 79's, on a quieter one), which hides a 3-5% difference. Interleaving their
repeats within the round brought it to 0.023 for the same two libraries alone (stop 81's probe, 8 rounds)
and 0.029-0.068 for pairs in sets of four to six libraries and ONNX Runtime (stop 81, on a host as noisy
as stop 80's: sgemm 80-149). Fresh processes every round are kept: stop 56 found that with one long-lived
process per library for the whole set, the libraries whose processes started first ran slow for the whole
set (14.36 / 12.32 / 10.75 ms, re-timed at 10.28 / 10.08); a round's processes now live for one round, and
their start order is drawn anew every round and kept (``start`` in each measurement) so that an order
effect would show.

A comparison uses the per-round ratio A/B: its geometric mean over rounds with a bootstrap 95% interval
(rounds resampled), the median ratio and how many rounds A was faster. "A at least as fast as B" is
shown when the interval's upper end is at most 1, "A slower" when its lower end is above 1, level
otherwise. With ``combine`` several pairs that are one comparison (one pair per tuning seed) also
combine into one figure: per round the mean of the pairs' log ratios, bootstrapped the same way.

``results.json`` is written after every round; a rerun with the same settings resumes, and one with more
``--rounds`` extends the set (``rounds`` is not a setting)."""

from __future__ import annotations

import functools
import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.bench.results import BenchInputError, ResultsFile, commands_of

PEER_NAMES = ("onnxruntime", "eager")
BOOTSTRAP = 4000


@dataclass(frozen=True)
class Library:
    name: str
    path: str
    seed: int = 0


@dataclass
class LatencyConfig:
    model: str
    libraries: list[Library]
    rounds: int = 12
    peers: list[str] = field(default_factory=lambda: ["onnxruntime"])
    pairs: list[tuple[str, str]] = field(default_factory=list)
    combine: bool = False  # the pairs are one comparison (one per seed): also report them together
    threads: int = 0  # 0: every core of this machine
    repeats: int = 10  # per contender and round, interleaved with the other contenders'
    min_repeat_ms: int = 100
    pause_s: float = 0.3  # before each process starts
    settle_s: float = 1.0  # after a repeat, the longest wait for its process to stop spinning
    order_seed: int = 12345
    atol: float = 1e-3  # output check: max abs error against PyTorch, relative to max(1, max |reference|)

    def __post_init__(self) -> None:
        if not self.libraries:
            raise ValueError("no library to time: give at least one --lib NAME=PATH[@SEED]")
        names = [lib.name for lib in self.libraries] + list(self.peers)
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"contender names must differ: {', '.join(dup)} given twice (a library may not be "
                             f"named like a peer)")
        for lib in self.libraries:
            if not os.path.isfile(lib.path):
                raise ValueError(f"--lib {lib.name}: no such file {lib.path}")
        for p in self.peers:
            if p not in PEER_NAMES:
                raise ValueError(f"unknown peer {p!r}; known: {', '.join(PEER_NAMES)} (or none)")
        for a, b in self.pairs:
            for n in (a, b):
                if n not in names:
                    raise ValueError(f"--pairs {a}/{b}: no contender named {n!r} (named: {', '.join(names)})")
            if a == b:
                raise ValueError(f"--pairs {a}/{b}: a contender against itself")
        if self.rounds < 1 or self.repeats < 1 or self.min_repeat_ms < 1:
            raise ValueError("--rounds, repeats and the repeat length must be positive")
        if self.pause_s < 0 or self.settle_s < 0:
            raise ValueError("the pauses must not be negative")

    @property
    def names(self) -> list[str]:
        return [lib.name for lib in self.libraries] + list(self.peers)

    def settings(self) -> dict[str, Any]:
        """What must match for a rerun to resume (not ``rounds``: more rounds extend a set)."""
        from tensortune.core.targets import cpu_model, llvm_cpu_name

        libs = [{"name": lib.name, "path": os.path.abspath(lib.path), "seed": lib.seed,
                 "bytes": os.path.getsize(lib.path)} for lib in self.libraries]
        return {"model": self.model, "libraries": libs, "peers": list(self.peers),
                "threads": self.threads or os.cpu_count() or 1, "repeats": self.repeats,
                "min_repeat_ms": self.min_repeat_ms, "pause_s": self.pause_s, "settle_s": self.settle_s,
                "protocol": "interleaved", "order_seed": self.order_seed,
                "cpu_model": cpu_model(), "llvm_cpu": llvm_cpu_name()}


def round_order(names: list[str], order_seed: int, r: int) -> list[str]:
    """The order round ``r`` visits the contenders in: fixed by (order_seed, r), so a resumed round keeps it."""
    perm = np.random.default_rng([order_seed, r]).permutation(len(names))
    return [names[i] for i in perm]


def _torch_server(conn: Any, model: str, seed: int, x: np.ndarray, threads: int) -> None:
    """PyTorch eager in a process of its own: the model built on the weights of ``seed``."""
    from tensortune.models.importer import load_model
    from tensortune.models.peers import _serve, _torch_fn, error_line

    try:
        m = load_model(model, seed=seed)
        if m.torch_module is None:
            raise ValueError("no PyTorch module (the model came from ONNX)")
        fn, out = _torch_fn(m.torch_module, x, threads, frozen=False)
        fn()
    except Exception as e:
        conn.send(("error", error_line(e)))
        return
    _serve(conn, fn, out)


def _logged_server(log_path: str, server: Callable[..., None]) -> Callable[..., None]:
    return functools.partial(_run_logged, log_path, server)


def _run_logged(log_path: str, server: Callable[..., None], *args: Any) -> None:
    """``server`` with this process's native stderr appended to ``log_path``: the TVM runtime prints a
    "Scope Loaded" line per constant scope it loads (102 for ResNet-18, every measurement)."""
    from tensortune.core.logs import native_log

    with native_log(log_path):
        server(*args)


def measure_round(starters: dict[str, Callable[[], Any]], order: list[str], repeats: int, min_repeat_ms: int,
                  pause_s: float = 0.0, settle_s: float = 1.0) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """One round: a fresh process per contender (``starters[name]()`` returns a started ``ServedProcess``),
    started in ``order``; one discarded repeat each; then ``repeats`` passes of one repeat per contender, the
    order reversed every other pass; after every repeat, a wait (at most ``settle_s``) until that process
    stops spinning. Returns each contender's repeats and its output; every process is stopped whatever
    happens."""
    procs: dict[str, Any] = {}
    try:
        for name in order:
            time.sleep(pause_s)
            procs[name] = starters[name]()
        for name in order:
            procs[name].settle(settle_s)
        for name in order:
            procs[name].repeat_ms(min_repeat_ms)
            procs[name].settle(settle_s)
        times: dict[str, list[float]] = {name: [] for name in order}
        for k in range(repeats):
            for name in (order if k % 2 == 0 else order[::-1]):
                times[name].append(procs[name].repeat_ms(min_repeat_ms))
                procs[name].settle(settle_s)
        return times, {name: np.asarray(p.output) for name, p in procs.items()}
    finally:
        for p in procs.values():
            p.close()


def bootstrap_ci(logs: np.ndarray, n: int = BOOTSTRAP, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the mean of ``logs`` (rounds resampled with replacement), as ratios."""
    if len(logs) < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = logs[rng.integers(0, len(logs), size=(n, len(logs)))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(np.exp(lo)), float(np.exp(hi))


def verdict(ci: tuple[float, float]) -> str:
    lo, hi = ci
    if math.isnan(lo):
        return "too few rounds"
    if hi <= 1.0:
        return "at least as fast: shown"
    if lo > 1.0:
        return "slower: shown"
    return "level: neither shown"


def per_round(doc: dict[str, Any]) -> dict[int, dict[str, float]]:
    rounds: dict[int, dict[str, float]] = {}
    for m in doc["measurements"]:
        rounds.setdefault(m["round"], {})[m["name"]] = m["ms"]
    return rounds


def pair_stats(doc: dict[str, Any], pairs: list[tuple[str, str]], combine: bool = False) -> dict[str, Any]:
    """Per pair and, with ``combine``, for all pairs together: geometric-mean ratio with its bootstrap
    interval, median ratio, rounds A was faster, over the rounds in which every contender of the pair (of
    all pairs) ran."""
    rounds = per_round(doc)
    out: dict[str, Any] = {"pairs": []}
    for a, b in pairs:
        logs = np.array([math.log(v[a] / v[b]) for _, v in sorted(rounds.items()) if a in v and b in v])
        ci = bootstrap_ci(logs)
        out["pairs"].append({"a": a, "b": b, "rounds": len(logs),
                             "geomean": float(np.exp(logs.mean())) if len(logs) else math.nan,
                             "median": float(np.exp(np.median(logs))) if len(logs) else math.nan,
                             "a_faster": int((logs < 0).sum()), "ci95": list(ci), "verdict": verdict(ci)})
    if combine and len(pairs) > 1:
        need = {n for p in pairs for n in p}
        logs = np.array([np.mean([math.log(v[a] / v[b]) for a, b in pairs])
                         for _, v in sorted(rounds.items()) if need <= set(v)])
        ci = bootstrap_ci(logs)
        out["all"] = {"rounds": len(logs), "geomean": float(np.exp(logs.mean())) if len(logs) else math.nan,
                      "a_faster": int((logs < 0).sum()), "ci95": list(ci), "verdict": verdict(ci)}
    return out


def contender_stats(doc: dict[str, Any], reference: str | None) -> list[dict[str, Any]]:
    rounds = per_round(doc)
    rows = []
    for name in doc["config"]["names"]:
        v = [r[name] for _, r in sorted(rounds.items()) if name in r]
        if not v:
            continue
        row: dict[str, Any] = {"name": name, "rounds": len(v), "median_ms": float(np.median(v)), "min_ms": min(v),
                               "max_ms": max(v), "spread": max(v) / min(v) - 1.0}
        if reference and name != reference:
            ratios = [r[name] / r[reference] for _, r in sorted(rounds.items()) if name in r and reference in r]
            row["ratio_to_reference"] = float(np.median(ratios)) if ratios else math.nan
        rows.append(row)
    return rows


def run_latency(cfg: LatencyConfig, out: Path, command: str = "", progress: bool = True) -> dict[str, Any]:
    """Time every contender for ``cfg.rounds`` rounds (resuming what ``out/results.json`` holds)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from tensortune.models.importer import ModelError, load_model
    from tensortune.models.peers import ServedProcess, _library_server, _onnx_bytes, _ort_server

    try:
        model = load_model(cfg.model, seed=0)
        x = model.example_input()
        refs: dict[int, np.ndarray] = {}
        for s in sorted({lib.seed for lib in cfg.libraries} | {0}):
            ref = load_model(cfg.model, seed=s).torch_output(x) if s else model.torch_output(x)
            if ref is None:
                raise BenchInputError(f"{cfg.model}: no PyTorch module to check the outputs against")
            refs[s] = np.asarray(ref, dtype=np.float64)
    except ModelError as e:
        raise BenchInputError(str(e)) from None
    settings = cfg.settings()
    settings["names"] = cfg.names
    res = ResultsFile(out / "results.json", settings, command, sections=("measurements", "checks"))
    res.doc["rounds"] = max(cfg.rounds, int(res.doc.get("rounds", 0)))
    res.doc["pairs"] = [list(p) for p in cfg.pairs]
    res.doc["combine"] = cfg.combine
    res.save()
    threads = settings["threads"]
    console = Console(stderr=True, quiet=not progress)
    seeds = {lib.name: lib.seed for lib in cfg.libraries}
    done = {(m["round"], m["name"]) for m in res.doc["measurements"]}
    checked = {c["name"] for c in res.doc["checks"] if c.get("ok")}  # a failed check is made again
    todo = [(r, [n for n in round_order(cfg.names, cfg.order_seed, r) if (r, n) not in done])
            for r in range(res.doc["rounds"])]
    todo = [(r, names) for r, names in todo if names]
    log = str(out / "tvm.log")
    with tempfile.TemporaryDirectory(prefix="tensortune-latency-") as tmp:
        starters: dict[str, Callable[[], Any]] = {}
        for lib in cfg.libraries:
            path = os.path.abspath(lib.path)
            starters[lib.name] = lambda p=path: ServedProcess(f"library {p}", _logged_server(log, _library_server),
                                                              p, x, threads)
        if "onnxruntime" in cfg.peers:
            try:
                import onnxruntime  # noqa: F401
            except ImportError:
                raise BenchInputError("peer onnxruntime: not installed (pip install 'tensortune[peers]'), or "
                                      "--peers eager / none") from None
            onnx_path = os.path.join(tmp, "model.onnx")
            Path(onnx_path).write_bytes(_onnx_bytes(model, x))
            starters["onnxruntime"] = lambda: ServedProcess("ONNX Runtime", _ort_server, onnx_path, x, threads)
        if "eager" in cfg.peers:
            starters["eager"] = lambda: ServedProcess("PyTorch eager", _torch_server, cfg.model, 0, x, threads)
        bar = Progress(TextColumn("[bold]latency"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       TextColumn("left"), TimeRemainingColumn(), TextColumn("{task.description}"), console=console,
                       disable=not progress)
        with bar:
            task = bar.add_task("", total=len(todo))
            for r, names in todo:
                try:
                    times, outputs = measure_round(starters, names, cfg.repeats, cfg.min_repeat_ms, cfg.pause_s,
                                                   cfg.settle_s)
                except RuntimeError as e:
                    raise BenchInputError(f"round {r + 1}: {e}") from None
                for name in names:
                    if name in checked:
                        continue
                    ref = refs[seeds.get(name, 0)]
                    err = float(np.max(np.abs(np.asarray(outputs[name], dtype=np.float64).reshape(ref.shape) - ref)))
                    tol = cfg.atol * max(1.0, float(np.max(np.abs(ref))))
                    ok = err <= tol
                    res.add("checks", {"name": name, "seed": seeds.get(name, 0), "max_abs_error": err, "ok": ok})
                    checked.add(name)
                    if not ok:
                        raise BenchInputError(f"{name}: output differs from PyTorch's on the weights of seed "
                                              f"{seeds.get(name, 0)} by {err:.3g} (> {tol:.3g}): another model, or "
                                              f"another --seed than the library was built with?")
                at = time.time()
                ms = {name: float(np.median(times[name])) for name in names}
                for i, name in enumerate(names):
                    res.add("measurements", {"round": r, "name": name, "ms": ms[name], "start": i,
                                             "repeats": [round(t, 5) for t in times[name]], "at": at})
                bar.update(task, advance=1, description=f"round {r + 1}/{res.doc['rounds']}: "
                           + ", ".join(f"{n} {ms[n]:.2f}" for n in names) + " ms")
    if len(res.doc["measurements"]) == len(cfg.names) * res.doc["rounds"]:
        res.finish()
    return res.doc


def _fmt_ci(ci: list[float]) -> str:
    return "-" if math.isnan(ci[0]) else f"{ci[0]:.3f}-{ci[1]:.3f}"


def write_latency_report(doc: dict[str, Any], out: Path) -> Path:
    from tensortune.bench.report import pyplot, save_figure, table, write_markdown

    c = doc["config"]
    reference = "onnxruntime" if "onnxruntime" in c["names"] else None
    rows = contender_stats(doc, reference)
    pairs = [tuple(p) for p in doc.get("pairs", [])]
    stats = pair_stats(doc, pairs, bool(doc.get("combine")))  # type: ignore[arg-type]
    n_rounds = len(per_round(doc))
    lines = [f"# Whole-model latency: {c['model']}", "",
             f"Command: `{commands_of(doc)}`", "",
             f"Machine: {c['cpu_model']} (LLVM `{c['llvm_cpu']}`), {c['threads']} threads. {n_rounds} rounds "
             f"(of {doc.get('rounds')} asked). Every round a fresh process per contender, started in a random "
             f"order; one discarded repeat each, then {c['repeats']} passes of one repeat (>= {c['min_repeat_ms']} ms "
             f"of back-to-back inferences) per contender in turn, the order reversed every other pass; a "
             f"contender's figure for the round is the median of its repeats; after every repeat a wait (at most "
             f"{c.get('settle_s', 1.0):g} s) until that process stops spinning. "
             f"Outputs checked against PyTorch (max abs error): "
             + ", ".join(f"{k['name']} {k['max_abs_error']:.1e}" for k in doc["checks"] if k.get("ok")) + ".", ""]
    head = ["contender", "rounds", "median ms", "min", "max", "spread"]
    if reference:
        head.append(f"per-round ratio to {reference} (median)")
    body = []
    for r in rows:
        b = [r["name"], str(r["rounds"]), f"{r['median_ms']:.2f}", f"{r['min_ms']:.2f}", f"{r['max_ms']:.2f}",
             f"{r['spread'] * 100:.0f}%"]
        if reference:
            b.append("-" if r["name"] == reference else f"{r['ratio_to_reference']:.3f}")
        body.append(b)
    lines += [table(head, body), ""]
    if pairs:
        lines += ["Pairs: per-round ratio A/B (A's and B's repeats interleaved within the round), geometric mean "
                  f"over rounds with a bootstrap 95% interval ({BOOTSTRAP} resamples of the rounds).", ""]
        prow = [[f"{p['a']} / {p['b']}", str(p["rounds"]), f"{p['geomean']:.3f}", _fmt_ci(p["ci95"]),
                 f"{p['median']:.3f}", f"{p['a_faster']}/{p['rounds']}", p["verdict"]] for p in stats["pairs"]]
        if "all" in stats:
            a = stats["all"]
            prow.append(["the pairs together (mean log ratio per round)", str(a["rounds"]), f"{a['geomean']:.3f}",
                         _fmt_ci(a["ci95"]), "-", f"{a['a_faster']}/{a['rounds']}", a["verdict"]])
        lines += [table(["A / B", "rounds", "geomean ratio", "95% interval", "median ratio", "A faster", "A vs B"],
                        prow), ""]
    lines += ["![per-round latency and pair ratios](latency.png)", ""]
    _plot(doc, pairs, out / "latency.png", pyplot, save_figure)  # type: ignore[arg-type]
    return write_markdown(out, lines)


def _plot(doc: dict[str, Any], pairs: list[tuple[str, str]], path: Path, pyplot: Any, save_figure: Any) -> None:
    rounds = per_round(doc)
    if not rounds:
        return
    plt = pyplot()
    ncols = 2 if pairs else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.5 * ncols, 4.2), squeeze=False)
    ax = axes[0][0]
    for name in doc["config"]["names"]:
        xs = [r + 1 for r, v in sorted(rounds.items()) if name in v]
        ax.plot(xs, [rounds[r - 1][name] for r in xs], marker="o", ms=3, label=name)
    ax.set_xlabel("round")
    ax.set_ylabel("ms per inference")
    ax.set_title("every measurement (the host's speed moves)")
    ax.legend(fontsize=7)
    if pairs:
        ax = axes[0][1]
        rng = np.random.default_rng(0)
        for i, (a, b) in enumerate(pairs):
            v = [rounds[r][a] / rounds[r][b] for r in sorted(rounds) if a in rounds[r] and b in rounds[r]]
            if not v:
                continue
            ax.scatter(i + rng.uniform(-0.15, 0.15, len(v)), v, s=10, alpha=0.6)
            g = float(np.exp(np.mean(np.log(v))))
            ax.plot([i - 0.3, i + 0.3], [g, g], color="black")
        ax.axhline(1.0, color="grey", ls="--", lw=1)
        ax.set_xticks(range(len(pairs)), [f"{a}\n/ {b}" for a, b in pairs], fontsize=7)
        ax.set_ylabel("per-round ratio A / B (bar: geometric mean)")
        ax.set_title("below 1: A faster")
    save_figure(fig, path)
