"""Ground-truth tables, the reduced space, the bench harness, its report and the CLI."""

from __future__ import annotations

import gzip
import json
import shutil

import numpy as np
import pytest

from tensortune.bench.groundtruth import (
    GT_LAYERS,
    GroundTruth,
    available_tables,
    load_table,
    table_path,
)
from tensortune.bench.harness import BenchConfig, run_bench, run_recipe_on_replay
from tensortune.bench.report import write_report
from tensortune.cli.main import main
from tensortune.storage.tables import space_fingerprint
from tensortune.templates import get_template
from tensortune.workloads import resolve_layer


def test_shipped_tables_cover_the_reduced_spaces_completely():
    assert set(GT_LAYERS) <= set(available_tables())
    for layer in GT_LAYERS:
        gt = load_table(layer)
        sp = gt.task.space
        valid = [i for i in range(sp.size) if sp.is_valid(sp.config(i))]
        assert gt.index.tolist() == valid and 1000 <= gt.n <= 5000
        assert np.isfinite(gt.cost).sum() == gt.n - gt.meta["failed"]
        assert gt.meta["machine"]["cpu"] and gt.meta["finished"] and gt.meta["timing"]["repeat"] == 3
        assert gt.optimum_gflops == pytest.approx(gt.task.flops / gt.cost.min() / 1e9)
        assert (gt.build_s > 0).all() and (gt.run_wall_s > 0).all()


def test_reduced_space_is_a_subspace_of_the_full_template():
    _, wl = resolve_layer("L8")
    full = get_template("conv2d_nchw.llvm").space(wl)
    small = get_template("conv2d_nchw.llvm-small").space(wl)
    assert small.names == full.names and small.size < full.size
    rng = np.random.default_rng(0)
    for cfg in small.sample(50, rng):
        vals = small.to_json(cfg)
        assert full.to_json(full.from_json(vals)) == vals  # same values are a config of the full space
        assert full.is_valid(full.from_json(vals)) == small.is_valid(cfg)
    with pytest.raises(ValueError, match="unknown knobs"):
        full.restrict({"nope": lambda v: True})
    with pytest.raises(ValueError, match="no option"):
        full.restrict({"tile_f": lambda v: False})


def test_table_round_trip_and_refuses_a_changed_space(tmp_path):
    gt = load_table("L2")
    p = tmp_path / "L2.json.gz"
    gt.save(p)
    back = GroundTruth.load(p)
    assert back.index.tolist() == gt.index.tolist() and np.allclose(back.cost, gt.cost, rtol=1e-6)
    with gzip.open(p, "rt") as f:
        doc = json.load(f)
    doc["meta"]["space_fingerprint"] = "0" * 16
    with gzip.open(p, "wt") as f:
        json.dump(doc, f)
    with pytest.raises(ValueError, match="different space"):
        GroundTruth.load(p)
    (tmp_path / "bad.json.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="not a ground-truth table"):
        GroundTruth.load(tmp_path / "bad.json.gz")
    with pytest.raises(ValueError, match="no ground-truth table"):
        load_table("L5", tmp_path)
    assert space_fingerprint(gt.task.space) == gt.meta["space_fingerprint"]


def test_replayed_run_has_real_costs_and_a_wall_axis():
    gt = load_table("L7")
    t = run_recipe_on_replay("autotvm", gt, 0, 96)
    assert t.trials == 96 and t.mode == "replay"
    # every trial's GFLOP/s is the table's value for some config; the wall clock only moves forward
    table = set(np.round(gt.gflops, 6))
    assert all(round(g, 6) in table for g in t.gflops)
    assert all(b >= a for a, b in zip(t.wall, t.wall[1:], strict=False))
    assert t.measure_s == pytest.approx(t.wall[-1] - t.overhead_s, rel=0.05)
    assert t.best() <= gt.optimum_gflops + 1e-9
    n = t.trials_to(0.9 * gt.optimum_gflops)
    assert n is None or t.curve()[n - 1] >= 0.9 * gt.optimum_gflops


def test_bench_end_to_end_writes_report_and_resumes(tmp_path):
    cfg = BenchConfig(layers=["L2"], budgets=[48, 24], seeds=[0, 1], recipes=["random", "autotvm"], peers=["pytorch"])
    assert cfg.budgets == [24, 48]
    res = run_bench(cfg, tmp_path, command="test", progress=False)
    assert len(res.doc["traces"]) == 4 and len(res.doc["pytorch"]) == 2 and len(res.doc["drift"]) == 2
    assert all(x["gflops"] > 0 for x in res.doc["pytorch"] + res.doc["drift"])
    report = write_report(res.doc, tmp_path)
    text = report.read_text()
    assert "test" in text and "| autotvm | replay |" in text and "**48 measurements**" in text
    assert (tmp_path / "L2.png").stat().st_size > 10_000
    # rerunning with the same settings keeps everything and measures nothing new
    before = (tmp_path / "results.json").read_text()
    run_bench(cfg, tmp_path, command="test", progress=False)
    assert json.loads((tmp_path / "results.json").read_text())["traces"] == json.loads(before)["traces"]
    with pytest.raises(ValueError, match="other settings"):
        run_bench(BenchConfig(layers=["L2"], budgets=[8], seeds=[0], recipes=["random"], peers=[]), tmp_path,
                  progress=False)


def test_bench_config_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown recipes"):
        BenchConfig(layers=["L2"], budgets=[8], seeds=[0], recipes=["nope"])
    with pytest.raises(ValueError, match="unknown peers"):
        BenchConfig(layers=["L2"], budgets=[8], seeds=[0], recipes=["random"], peers=["tensorflow"])
    with pytest.raises(ValueError, match="positive"):
        BenchConfig(layers=["L2"], budgets=[0], seeds=[0], recipes=["random"])


def test_cli_bench_bad_input(capsys, tmp_path):
    assert main(["bench", "--layers", "L5", "--out", str(tmp_path)]) == 2
    assert "no ground-truth table" in capsys.readouterr().err
    assert main(["bench", "--layers", "L2", "--recipes", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown recipes" in capsys.readouterr().err
    assert main(["groundtruth", "--layers", "L99"]) == 2
    assert "unknown layers" in capsys.readouterr().err
    assert main(["groundtruth", "--layers", "L7", "--passes", "0", "--db", str(tmp_path / "g.db")]) == 2
    assert "--passes 0" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written before the input is checked


def test_cli_bench_runs_with_replay_only(tmp_path, capsys):
    tables = tmp_path / "tables"
    tables.mkdir()
    shutil.copy(table_path("L8"), tables / "L8.json.gz")
    out = tmp_path / "out"
    assert main(["bench", "--layers", "L8", "--budgets", "32", "--seeds", "0", "--recipes", "random,rl",
                 "--peers", "none", "--tables", str(tables), "--out", str(out), "--no-progress"]) == 0
    assert "report:" in capsys.readouterr().out
    assert "| rl | replay |" in (out / "report.md").read_text()


@pytest.mark.slow
def test_metaschedule_peer_runs_live_on_the_same_primfunc():
    from tensortune.bench.peers import metaschedule_func, run_metaschedule
    from tensortune.core.targets import default_cpu_target

    gt = load_table("L8")
    live = gt.live_task()  # compiled for this CPU (the table may name an AVX-512 CPU this one is not)
    assert live.target["mcpu"] == default_cpu_target()["mcpu"] and live.workload == gt.task.workload
    assert live.space.size == gt.task.space.size
    func = metaschedule_func(live)
    assert len(func.params) == 3  # data, packed kernel, output: what our template schedules
    t = run_metaschedule(live, "L8", 0, trials=8, trials_per_iter=8)
    assert t.trials == 8 and t.mode == "live" and t.best() > 0
    assert t.measure_s > 0 and t.overhead_s > 0 and t.wall[-1] > 0


def test_a_results_file_keeps_every_command_that_wrote_it(tmp_path):
    from tensortune.bench.results import BenchInputError, ResultsFile, commands_of

    path = tmp_path / "results.json"
    ResultsFile(path, {"a": 1}, "tensortune bench x --rounds 2", sections=("runs",)).add("runs", {"r": 0})
    again = ResultsFile(path, {"a": 1}, "tensortune bench x --rounds 3", sections=("runs",))
    assert again.find_all("runs") == [{"r": 0}]  # resumed: what was done is kept
    again.save()
    ResultsFile(path, {"a": 1}, "tensortune bench x --rounds 3", sections=("runs",)).save()  # the same rerun: once
    doc = json.loads(path.read_text())
    assert doc["command"] == "tensortune bench x --rounds 2"
    assert commands_of(doc) == "tensortune bench x --rounds 2 ; then tensortune bench x --rounds 3"
    assert commands_of({}) == "(command not recorded)"
    with pytest.raises(BenchInputError, match="other settings"):
        ResultsFile(path, {"a": 2}, "tensortune bench x", sections=("runs",))


# ---------------------------------------------------------------- several passes per table (stop 109)
class _PhasedMeasurer:
    """A measurer on a host with phases: reading t of pass k (in the order timed) costs the config's true cost times
    ``phase(k, t)``, and one config per pass reads 3x too fast (a lucky reading); a context manager, as the tables'
    real measurer is."""

    def __init__(self, task, phase):
        self.task, self.phase, self.calls = task, phase, 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def true_cost(self, idx):
        return 1e-4 * (1 + idx % 37)

    def measure(self, inputs):
        from tensortune.core.values import MeasureResult

        out = []
        n = self.task.space.size
        for inp in inputs:
            idx = self.task.space.index_of(inp.config)
            k, t = divmod(self.calls, n)  # the pass, and the reading's place in it
            self.calls += 1
            c = self.true_cost(idx) * self.phase(k, t)
            if idx == 10 * (k + 1):  # one lucky reading per pass, a different config each time
                c /= 3
            out.append(MeasureResult(costs=(c, c, c)))
        return out

    def close(self):
        pass


def test_grid_search_in_a_shuffled_order_visits_every_valid_config_once():
    from tensortune.strategies.grid import GridSearch
    from tensortune.templates import make_task
    from tensortune.workloads import Dense

    sp = make_task(Dense.make(1, 4, 4), "dense.llvm", {"kind": "llvm", "num-cores": 1}, "tiny").space
    orders = []
    for order, seed in (("index", 0), ("shuffled", 0), ("shuffled", 0), ("shuffled", 1)):
        g = GridSearch(sp, seed=seed, order=order)
        seen = []
        while batch := g.ask(32):
            seen += batch
            g.tell(batch, [1.0] * len(batch))
        assert sorted(seen) == sorted(sp.config(i) for i in range(sp.size)) and len(set(seen)) == sp.size
        orders.append([sp.index_of(c) for c in seen])
    assert orders[0] == list(range(sp.size))
    assert orders[1] == orders[2] != orders[0] and orders[3] != orders[1]  # seeded, and a seed gives its own order
    with pytest.raises(ValueError, match="order"):
        GridSearch(sp, order="backwards")


def test_a_table_of_several_passes_takes_each_configs_median_and_resumes(tmp_path, monkeypatch):
    """Passes in which the machine runs at 1x, 1.5x, 1x and 1.2x and one config per pass reads 3x too fast: the
    table's cost is each config's median, so no single pass's lucky reading makes an optimum, and a pass's phase is
    divided out; a fourth pass asked later measures only that pass (the first three resume from the database);
    the passes' raw readings are saved and reloaded."""
    from tensortune.bench import groundtruth as G
    from tensortune.templates import make_task
    from tensortune.workloads import Dense

    task = make_task(Dense.make(1, 4, 4), "dense.llvm", {"kind": "llvm", "num-cores": 1}, "tiny")
    m = _PhasedMeasurer(task, lambda k, t: [1.0, 1.5, 1.0, 1.2][k])
    monkeypatch.setattr(G, "groundtruth_task", lambda layer, target=None: task)
    monkeypatch.setattr(G, "groundtruth_measurer", lambda t: m)
    gt = G.measure_table("L7", tmp_path / "g.db", tmp_path, progress=False, passes=3)
    n = task.space.size
    assert m.calls == 3 * n and gt.n == n and gt.passes == 3 and gt.pass_cost.shape == (n, 3)
    base = m.true_cost(gt.index)
    steady = ~np.isin(gt.index, [10, 20, 30, 40])
    assert np.allclose(gt.pass_cost[steady, 1], 1.5 * base[steady])  # the raw readings are kept
    bad = ~np.isclose(gt.cost, base, rtol=0.02)
    assert not bad.any(), (gt.index[bad], gt.cost[bad] / base[bad], gt.pass_cost[bad] / base[bad, None])
    assert gt.meta["timing"]["passes"] == 3 and gt.meta["phase_window"] == 4 and len(gt.meta["pass_agreement"]) == 3
    assert all(0.95 < r < 1 for r in gt.meta["pass_agreement"])  # phases scale all alike; lucky readings do not
    back = GroundTruth.load(table_path("L7", tmp_path))
    assert back.passes == 3 and np.allclose(back.pass_cost, gt.pass_cost) and np.allclose(back.cost, gt.cost)
    # asked again with four passes: the first three resume, only the fourth is measured
    gt4 = G.measure_table("L7", tmp_path / "g.db", tmp_path, progress=False, passes=4)
    assert m.calls == 4 * n and gt4.passes == 4
    r = gt4.cost[steady] / base[steady]  # every config on one level, the typical moment's (between 1x and 1.2x)
    assert np.ptp(r) < 0.02 * r.mean() and 1.0 <= r.mean() <= 1.2
    with pytest.raises(ValueError, match="passes"):
        G.measure_table("L7", tmp_path / "g.db", tmp_path, progress=False, passes=0)


def test_a_slow_phase_of_the_host_is_divided_out_of_the_readings_it_fell_on(tmp_path, monkeypatch):
    """Each of three passes has a slow phase (1.6x) over a different third of its time. Every config is timed at a
    random place in each pass, so some fall in two passes' slow phases and their raw median reads 1.6x; with each
    reading divided by its time neighbours' median error, nearly every config reads its true cost."""
    from tensortune.bench import groundtruth as G
    from tensortune.templates import make_task
    from tensortune.workloads import Dense

    task = make_task(Dense.make(1, 8, 8), "dense.llvm", {"kind": "llvm", "num-cores": 1}, "tiny")
    n = task.space.size
    m = _PhasedMeasurer(task, lambda k, t: 1.6 if k * n // 3 <= t < (k + 1) * n // 3 else 1.0)
    monkeypatch.setattr(G, "groundtruth_task", lambda layer, target=None: task)
    monkeypatch.setattr(G, "groundtruth_measurer", lambda t: m)
    gt = G.measure_table("L8", tmp_path / "g.db", tmp_path, progress=False, passes=3)
    base = m.true_cost(gt.index)
    raw = np.median(gt.pass_cost, axis=1) / base
    fixed = gt.cost / base
    assert np.mean(raw > 1.5) > 0.15  # about 2/9 of the configs fell in two slow phases
    assert np.mean(np.abs(fixed - 1) < 0.05) > 0.95  # the edges of a phase are partly corrected
    from tensortune.storage.tables import spearman

    assert spearman(gt.cost, base) > 0.97 > spearman(np.median(gt.pass_cost, axis=1), base)


def test_from_passes_marks_a_config_failed_only_where_half_its_passes_failed():
    from types import SimpleNamespace

    from tensortune.core.values import ErrorKind
    from tensortune.templates import make_task
    from tensortune.workloads import Dense

    task = make_task(Dense.make(1, 4, 4), "dense.llvm", {"kind": "llvm", "num-cores": 1}, "tiny")
    n = task.space.size

    def run(costs, errors):
        return [SimpleNamespace(kind="trial", config_index=i, cost=c, error=e, ok=e == ErrorKind.NONE,
                                build_seconds=0.5 + k, extra={"run_wall_s": 0.1}, run_seconds=0.1, timestamp=100.0 + k)
                for k, (i, c, e) in enumerate(zip(range(n), costs, errors, strict=True))]

    ok, inf = ErrorKind.NONE, float("inf")
    c1 = [1e-3] * n
    e1 = [ok] * n
    c2, e2 = list(c1), list(e1)
    c3, e3 = list(c1), list(e1)
    c2[0], e2[0] = inf, ErrorKind.RUNTIME  # config 0 fails once in three: it has a cost
    c2[1], e2[1] = inf, ErrorKind.RUN_TIMEOUT  # config 1 fails twice: failed, with the first failure's kind
    c3[1], e3[1] = inf, ErrorKind.RUNTIME
    c3[2] = 2e-3
    gt = GroundTruth.from_passes(task, [run(c1, e1), run(c2, e2), run(c3, e3)], {"layer": "tiny"}, phase_window=0)
    assert gt.passes == 3 and gt.meta["passes"] == 3 and gt.meta["failed"] == 1
    assert gt.cost[0] == pytest.approx(1e-3) and gt.error[0] == ErrorKind.NONE
    assert gt.cost[1] == inf and gt.error[1] == ErrorKind.RUN_TIMEOUT
    assert gt.cost[2] == pytest.approx(1e-3)  # 1, 1, 2 ms: the median
    fixed = GroundTruth.from_passes(task, [run(c1, e1), run(c2, e2), run(c3, e3)], {"layer": "tiny"})
    assert fixed.meta["phase_window"] == 4 and fixed.cost[1] == inf and fixed.error[1] == ErrorKind.RUN_TIMEOUT
    assert np.isfinite(fixed.cost[np.arange(n) != 1]).all()  # a failed reading neither fails nor moves its neighbours
    one = GroundTruth.from_passes(task, [run(c1, e1)], {"layer": "tiny"})
    assert one.passes == 1 and one.pass_cost is None and one.pass_agreement() == []
    with pytest.raises(ValueError, match="no passes"):
        GroundTruth.from_passes(task, [], {})


def test_spearman_matches_the_textbook_cases():
    from tensortune.storage.tables import spearman

    x = np.arange(10.0)
    assert spearman(x, x**3) == pytest.approx(1.0) and spearman(x, -x) == pytest.approx(-1.0)
    assert spearman(np.array([1.0, 2, 2, 3]), np.array([1.0, 2, 3, 4])) == pytest.approx(0.9486833, abs=1e-6)
    assert np.isnan(spearman(x[:2], x[:2]))
