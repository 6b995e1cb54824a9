"""The pretrained corpus: written from a database, read back as a storage, the whole prior of an empty
database and fading as the user's records arrive; the shipped corpus records its machine and holds no
shape of the evaluation layers or the zoo models; `corpus build` measures, resumes and writes it."""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import pytest


@pytest.fixture(scope="module")
def tables():
    from tensortune.bench.groundtruth import load_table

    return {name: load_table(name) for name in ("L2", "L7", "L8")}


def _db_of(tables, names, path, trials=48, seed=0):
    from tensortune.measure.replay import ReplayMeasurer
    from tensortune.storage import SQLiteStorage
    from tensortune.tuners import Budget, Tuner, create

    db = SQLiteStorage(path)
    for n in names:
        gt = tables[n]
        Tuner(gt.task, create("random", gt.task.space, seed), ReplayMeasurer([gt]), db, Budget(trials=trials),
              seed=seed).run()
    return db


def test_a_corpus_round_trips_and_reads_like_a_database(tables, tmp_path):
    from tensortune.transfer.corpus import Corpus

    db = _db_of(tables, ["L2", "L7"], tmp_path / "c.db")
    corpus = Corpus.from_storage(db, "Some CPU (znver9)", protocol={"single layers": {"repeat": 3}}, created="2026-11-23",
                                 command="tensortune corpus build")
    path = str(tmp_path / "c.json.gz")
    size = corpus.save(path)
    assert 0 < size == os.path.getsize(path)
    back = Corpus.load(path)
    assert back.machine == "Some CPU (znver9)" and back.protocol == {"single layers": {"repeat": 3}}
    assert back.n_records == 96 and len(back.tasks()) == 2
    for key, target, _ in db.tasks():
        mine = {(r.config_index, r.cost) for r in db.records(key, target, kind="trial")}  # remeasures left out
        assert back.count_task(key, target) == len(mine)
        assert {(r.config_index, r.cost) for r in back.records(key, target)} == mine
    # a loaded record carries its task's name again (the file keeps it once, on the task), so records exported
    # from a corpus into a database name their task (stop 76: they did not, and a build resumed on them wrote a
    # corpus of nameless tasks)
    names = {t.task_key: t.name for t in back.tasks_}
    assert all(names.values()) and all(r.task_name == names[r.task_key] for r in back.records())


def test_the_corpus_is_the_prior_of_an_empty_database_and_fades_as_records_arrive(tables, tmp_path):
    from tensortune.storage import SQLiteStorage
    from tensortune.transfer import TransferPrior
    from tensortune.transfer.corpus import CORPUS_FADE, Corpus

    here = tables["L8"].task
    corpus = Corpus.from_storage(_db_of(tables, ["L2", "L7"], tmp_path / "c.db"), "x")
    empty = SQLiteStorage(tmp_path / "user.db")
    assert not TransferPrior.from_storage(empty, here)  # nothing to learn from without the corpus
    prior = TransferPrior.from_storage(empty, here, corpus=corpus)
    assert prior and prior.n_corpus_records == prior.n_records == 96
    assert all(s.corpus and s.prior_weight == 1.0 for s in prior.sources)
    assert "shipped corpus" in prior.describe()
    first = prior.initial_configs(4)
    assert first and all(here.space.is_valid(c) for c in first)
    # the same configs as from a database holding those records: the corpus reads as one
    same = TransferPrior.from_storage(_db_of(tables, ["L2", "L7"], tmp_path / "d.db"), here)
    assert [here.space.index_of(c) for c in same.initial_configs(4)] == [here.space.index_of(c) for c in first]
    # the user's own records of other tasks arrive: the corpus fades, the user's records weigh in full
    user = _db_of(tables, ["L7"], tmp_path / "user2.db", trials=64, seed=1)
    mixed = TransferPrior.from_storage(user, here, corpus=corpus)
    weights = {s.corpus: s.prior_weight for s in mixed.sources}
    assert weights[False] == 1.0 and weights[True] == pytest.approx(1 / (1 + 64 / CORPUS_FADE))


def test_the_corpus_holds_the_tasks_own_records_too(tables, tmp_path):
    from tensortune.storage import SQLiteStorage
    from tensortune.transfer import TransferPrior
    from tensortune.transfer.corpus import Corpus

    corpus = Corpus.from_storage(_db_of(tables, ["L8"], tmp_path / "c.db"), "x")
    prior = TransferPrior.from_storage(SQLiteStorage(tmp_path / "u.db"), tables["L8"].task, corpus=corpus)
    assert prior.n_records == 48  # a corpus run of this very task, on another day, is a prior like any other


def test_a_bad_corpus_file_is_refused_with_its_reason(tmp_path):
    from tensortune.transfer.corpus import Corpus, CorpusError

    with pytest.raises(CorpusError, match="no corpus file"):
        Corpus.load(str(tmp_path / "missing.json.gz"))
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(CorpusError, match="unreadable"):
        Corpus.load(str(bad))
    with gzip.open(tmp_path / "other.json.gz", "wt") as f:
        json.dump({"format": "something-else"}, f)
    with pytest.raises(CorpusError, match="not a tensortune corpus"):
        Corpus.load(str(tmp_path / "other.json.gz"))
    with gzip.open(tmp_path / "broken.json.gz", "wt") as f:
        json.dump({"format": "tensortune-corpus/1", "tasks": [{"task_key": "a", "target_key": "{}",
                                                              "records": [{"config": 1}]}]}, f)
    with pytest.raises(CorpusError, match="malformed"):
        Corpus.load(str(tmp_path / "broken.json.gz"))


def test_task_files_are_installed_once(tmp_path):
    from tensortune.storage.records import TuningRecord
    from tensortune.transfer.corpus import Corpus, CorpusTask

    key = "conv2d_nchwc_fused.llvm|tir:0123456789abcdef"
    rec = TuningRecord(task_key=key, target_key="{}", config={}, config_index=0, costs=(1e-3,))
    corpus = Corpus([CorpusTask(key, "{}", "t", [rec], {"name": "t", "kind": "conv2d", "flops": 1.0, "mod": "{}"})], "x")
    assert corpus.install_task_files(str(tmp_path)) == 1
    path = tmp_path / "0123456789abcdef.json"
    assert json.loads(path.read_text())["name"] == "t"
    path.write_text('{"name": "kept"}')
    assert corpus.install_task_files(str(tmp_path)) == 0 and "kept" in path.read_text()


def _zoo_shapes() -> set[tuple]:
    """The shape columns (transfer/features.py) of every conv and dense layer of the zoo models and of
    the evaluation layers L1-L8."""
    import math

    import torch

    from tensortune.models.zoo import BUILTIN
    from tensortune.transfer.features import shape_features
    from tensortune.workloads import resolve_layer

    out = {tuple(np.round(shape_features(resolve_layer(f"L{i}")[1])[:10], 6)) for i in range(1, 9)}
    for make in BUILTIN.values():
        net = make().eval()
        hooks = []

        def hook(m, inp, _out):
            n, c, *hw = inp[0].shape
            if isinstance(m, torch.nn.Conv2d):
                row = [math.log2(n), math.log2(c), math.log2(hw[0]), math.log2(hw[1]), math.log2(m.out_channels),
                       *m.kernel_size, m.stride[0], m.padding[0], m.groups]
            else:
                row = [0.0, math.log2(c), math.log2(n), 0.0, math.log2(m.out_features), 1, 1, 1, 0, 1]
            out.add(tuple(np.round(np.array(row, dtype=float), 6)))

        for m in net.modules():
            if isinstance(m, torch.nn.Conv2d | torch.nn.Linear):
                hooks.append(m.register_forward_hook(hook))
        with torch.no_grad():
            net(torch.zeros(1, 3, 224, 224))
    return out


@pytest.mark.parametrize("cpu", ["znver3", "znver4", "znver5", "rocketlake", "znver4-no-avx512-no-gfni", "emeraldrapids"])
def test_the_shipped_corpus_records_its_machine_and_avoids_the_evaluation_shapes(cpu):
    from tensortune.templates import make_task
    from tensortune.transfer import TransferFeatures
    from tensortune.transfer.corpus import default_corpus, shipped_corpora
    from tensortune.workloads import workload_from_key

    assert os.path.getsize(shipped_corpora()[cpu]) < 5e6  # shipped in the package: a few MB at most
    corpus = default_corpus(cpu)
    assert corpus is not None and corpus.path == shipped_corpora()[cpu]
    # "CPU model (LLVM CPU name)", the CPU its file is named for (and what that machine lacked: "(znver4 -avx512 -gfni)")
    assert corpus.machine.endswith(f"({cpu.replace('-no-', ' -')})")
    assert corpus.protocol.get("model", {}).get("cache") == "cold" and "single layers" in corpus.protocol
    families = {t.task_key.split("|", 1)[0] for t in corpus.tasks_}
    assert {"conv2d_nchwc_fused.llvm", "conv2d_nchw.llvm", "dense.llvm"} <= families
    zoo = _zoo_shapes()
    assert len(zoo) > 20
    heights = []
    for t in corpus.tasks_:
        template, wl_key = t.task_key.split("|", 1)
        task = make_task(workload_from_key(wl_key), template, json.loads(t.target_key), t.name)
        feats = TransferFeatures(task)  # every task rebuilds (TIR ones from the task files it carries)
        assert any(r.ok for r in t.records) and all(r.extra.get("device") == corpus.machine for r in t.records)
        assert tuple(np.round(feats.shape[:10], 6)) not in zoo, t.name
        if template.startswith("conv2d"):
            heights.append(2 ** feats.shape[2])
    # large-spatial convolutions too (VGG-style networks spend their time at 56-224 pixels)
    assert max(heights) > 191 and sum(h > 95 for h in heights) >= 4, sorted(heights)


def test_a_run_uses_the_corpus_of_its_cpu_and_another_cpus_only_as_a_foreign_prior(tmp_path, monkeypatch, capsys):
    import tensortune.transfer.corpus as corpus_mod
    from tensortune.cli.main import main
    from tensortune.core import targets
    from tensortune.transfer.corpus import (
        CorpusError,
        corpus_file_for,
        default_corpus_path,
        nearest_cpu,
        shipped_corpora,
    )

    shipped = shipped_corpora()
    assert {"znver3", "znver4", "znver5"} <= set(shipped)
    assert default_corpus_path("znver3") == shipped["znver3"] == corpus_file_for("znver3")
    assert default_corpus_path("znver5") == shipped["znver5"]
    # none of its own: the nearest by instruction set, a foreign prior
    assert default_corpus_path("skylake-avx512") == shipped[nearest_cpu("skylake-avx512", shipped)]
    with pytest.raises(CorpusError, match="not an LLVM CPU name"):
        corpus_file_for("../x")
    # this machine's CPU decides, and `corpus show` names every shipped file and warns when the one in use is foreign
    monkeypatch.setattr(targets, "llvm_cpu_name", lambda: "znver3")
    monkeypatch.setattr(targets, "cpu_model", lambda: "AMD EPYC")
    # a Zen 3 that offers all its name implies (on an Intel host its real flags lack the AMD-only sse4a)
    monkeypatch.setattr(targets, "host_missing_features", lambda cpu=None, flags=None: [])
    assert default_corpus_path() == shipped["znver3"]
    assert main(["corpus", "show"]) == 0
    out = capsys.readouterr().out
    assert "znver3: corpus-llvm-znver3.json.gz" in out and "znver5: corpus-llvm-znver5.json.gz" in out
    assert "WARNING" not in out  # measured on this (pretended) machine
    monkeypatch.setattr(targets, "llvm_cpu_name", lambda: "icelake-server")
    assert main(["corpus", "show"]) == 0
    assert "WARNING: measured on" in capsys.readouterr().out
    # an install that ships none says so in one line
    monkeypatch.setattr(corpus_mod, "_data_dir", lambda: str(tmp_path / "none"))
    assert default_corpus_path() is None and corpus_mod.default_corpus() is None
    assert main(["corpus", "show"]) == 2
    assert "ships no corpus" in capsys.readouterr().err


def test_a_corpus_measured_where_instruction_sets_were_hidden_is_that_kind_of_machines_own(tmp_path, monkeypatch):
    import tensortune.transfer.corpus as corpus_mod
    from tensortune.core import targets
    from tensortune.core.targets import cpu_label_features, fp32_vector_lanes, llvm_cpu_features, llvm_cpu_key
    from tensortune.transfer.corpus import default_corpus_path, nearest_cpu

    # a VM that hides AVX-512 and GFNI from a Zen 4 (stops 58-60)
    hidden = sorted(f for f in llvm_cpu_features("znver4") if f.startswith("avx512")) + ["gfni"]
    assert len(hidden) > 5
    monkeypatch.setattr(targets, "llvm_cpu_name", lambda: "znver4")
    monkeypatch.setattr(targets, "host_missing_features", lambda cpu=None, flags=None: hidden)
    assert llvm_cpu_key() == "znver4-no-avx512-no-gfni"  # the file `corpus build` writes there
    had = cpu_label_features("znver4-no-avx512-no-gfni")
    assert had == cpu_label_features("znver4 -avx512 -gfni") == llvm_cpu_features("znver4") - set(hidden)
    assert fp32_vector_lanes(had) == 8 and "avx2" in had and fp32_vector_lanes(cpu_label_features("znver4")) == 16
    assert cpu_label_features("no-such-cpu-no-avx512") == frozenset()
    data = tmp_path / "data"
    data.mkdir()
    for cpu in ("znver3", "znver4", "znver5"):
        (data / f"corpus-llvm-{cpu}.json.gz").write_bytes(b"")
    monkeypatch.setattr(corpus_mod, "_data_dir", lambda: str(data))
    assert default_corpus_path() == str(data / "corpus-llvm-znver3.json.gz")  # the AVX2 Zen, not the AVX-512 one
    (data / "corpus-llvm-znver4-no-avx512-no-gfni.json.gz").write_bytes(b"")
    assert default_corpus_path() == str(data / "corpus-llvm-znver4-no-avx512-no-gfni.json.gz")  # its own kind
    # elsewhere such a corpus is compared by what its machine had: an AVX2 CPU's nearest, not an AVX-512 one's
    assert nearest_cpu("haswell", ["znver4", "znver4-no-avx512-no-gfni", "znver5"]) == "znver4-no-avx512-no-gfni"
    assert nearest_cpu("znver4", ["znver4", "znver4-no-avx512-no-gfni"]) == "znver4"
    assert nearest_cpu("skylake-avx512", ["znver3", "znver4-no-avx512-no-gfni", "znver5"]) == "znver5"


def test_a_cpu_without_a_corpus_of_its_own_takes_the_nearest_by_vector_width_then_instruction_set():
    from tensortune.core.targets import llvm_cpu_features
    from tensortune.transfer.corpus import nearest_cpu

    zen = ["znver3", "znver4", "znver5"]
    assert "avx512f" in llvm_cpu_features("skylake-avx512") and llvm_cpu_features("no-such-cpu") == frozenset()
    assert nearest_cpu("znver4", zen) == "znver4"  # its own
    assert nearest_cpu("skylake-avx512", zen) in ("znver4", "znver5")  # AVX-512 before Zen 3's AVX2
    assert nearest_cpu("haswell", zen) == "znver3"  # AVX2 before the AVX-512 Zens
    assert nearest_cpu("znver2", zen) == "znver3"  # the same width, the nearest generation
    # an Intel AVX-512 CPU is nearer another Intel AVX-512 CPU than an AMD one
    assert nearest_cpu("sapphirerapids", zen + ["rocketlake"]) == "rocketlake"
    assert nearest_cpu("icelake-server", ["znver5", "rocketlake"]) == "rocketlake"
    assert nearest_cpu("no-such-cpu", zen) == "znver5"  # nothing known of it: the newest by name
    assert nearest_cpu("znver4", []) is None


@pytest.mark.slow
def test_corpus_build_measures_resumes_and_writes_a_corpus_a_run_learns_from(tmp_path, monkeypatch, capsys):
    from tensortune.cli.main import main
    from tensortune.models.corpus import (
        CONV_RUN,
        CORPUS_MODELS,
        DENSE_RUN,
        STEM_RUN,
        corpus_op_trials,
        corpus_ops,
        is_stem,
    )
    from tensortune.models.flow import DENSE
    from tensortune.storage import SQLiteStorage
    from tensortune.transfer.corpus import Corpus
    from tensortune.transfer.features import conv_in_channels
    from tensortune.workloads.tir import TirWorkload

    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path / "tasks"))
    db, out = tmp_path / "c.db", tmp_path / "c.json.gz"
    argv = ["corpus", "build", "--db", str(db), "--out", str(out), "--model-trials", "16", "--trials", "2",
            "--stem-trials", "20", "--conv-trials", "3", "--dense-trials", "4", "--repeat", "1", "--min-repeat-ms", "1",
            "--no-progress"]
    assert main(argv) == 0
    corpus = Corpus.load(str(out))
    st = SQLiteStorage(db)
    n = len(st.records(kind="trial"))
    # part 1b: each corpus model's stem (CorpusNet's 7x7/2 and CorpusWideNet's first 3x3, both on RGB) measured on
    # its own until it holds --stem-trials records, in a run of its own; no other task gets such a run
    stem_runs = [r for r in st.records(kind="trial") if r.run_id.startswith(f"{STEM_RUN}-s0-")]
    stems = {r.task_key for r in stem_runs}
    assert len(stems) == len(CORPUS_MODELS) - 1  # CorpusMlp has none
    for key in stems:
        recs = st.records(key, stem_runs[0].target_key, kind="trial")
        assert len(recs) == 20 > len([r for r in recs if r.run_id.startswith(STEM_RUN)])
        assert {t.name for t in corpus.tasks_ if t.task_key == key} <= {"fused_conv2d_NCHWc_subtract_divide_multiply_add1_relu1"}
        assert sum(len(t.records) for t in corpus.tasks_ if t.task_key == key) == 20
    # and every other convolution of theirs (direct and Winograd) until it holds at least --conv-trials records:
    # those the flow gave fewer get a run of their own that ends there
    conv_runs = [r for r in st.records(kind="trial") if r.run_id.startswith(f"{CONV_RUN}-s0-")]
    model_convs = [t for t in corpus.tasks_ if "|tir:" in t.task_key
                   and conv_in_channels(TirWorkload(t.task_key.split("|tir:", 1)[1])) is not None]
    assert len(model_convs) >= 10
    for t in model_convs:
        mine = [r for r in t.records if r.run_id.startswith(CONV_RUN)]
        assert len(t.records) >= 3 and (not mine or len(t.records) == 3), t.name
        assert not (mine and is_stem(TirWorkload(t.task_key.split("|tir:", 1)[1])))
    assert {r.task_key for r in conv_runs} == {t.task_key for t in model_convs
                                               if any(r.run_id.startswith(CONV_RUN) for r in t.records)}
    assert conv_runs and {r.task_key for r in conv_runs}.isdisjoint(stems)
    singles = len(corpus_ops())  # 14 single layers (11 convs, 3 dense)
    assert singles == 14
    per_op = corpus_op_trials(2)  # 2 each, 8 for the three stem-like shapes
    assert sorted(per_op.values()) == [2] * 11 + [8] * 3
    single_records = [r for r in st.records(kind="trial") if r.task_key.startswith(("conv2d_nchw.llvm|", "dense.llvm|"))]
    assert len(single_records) == sum(per_op.values())
    # the model part: 16 a model in its direct graph, and in its Winograd graph up to 16 more (the direct tasks
    # both graphs share resume their records there), and the single layers
    # part 1b's dense floor: every dense layer of the corpus models (CorpusNet's and CorpusWideNet's heads, CorpusMlp's
    # three) ends with at least --dense-trials records, those that needed a run of their own exactly that many
    dense_runs = [r for r in st.records(kind="trial") if r.run_id.startswith(f"{DENSE_RUN}-s0-")]
    model_dense = [t for t in corpus.tasks_ if t.task_key.startswith(f"{DENSE}|")]
    assert len(model_dense) == 5 and dense_runs
    for t in model_dense:
        mine = [r for r in t.records if r.run_id.startswith(DENSE_RUN)]
        assert len(t.records) >= 4 and (not mine or len(t.records) == 4), t.name
    assert {r.task_key for r in dense_runs} <= {t.task_key for t in model_dense}
    parts_1b = len(stem_runs) + len(conv_runs) + len(dense_runs)
    assert 16 * len(CORPUS_MODELS) < n - sum(per_op.values()) - parts_1b <= 32 * len(CORPUS_MODELS)
    assert len({r.task_key for r in st.records(kind="trial")
                if r.task_key.startswith("conv2d_winograd_fused.llvm|")}) >= 2
    # every trial record of the corpus's tasks is in it; the model part's MetaSchedule-space tasks (pooling,
    # dense) are measured (the allocator reaches every task) but left out of the corpus
    assert corpus.n_records == sum(1 for t in corpus.tasks_ for r in st.records(t.task_key, t.target_key)
                                   if r.kind == "trial") > 2 * singles
    assert any(t.task_file for t in corpus.tasks_)  # the TIR tasks carry their function
    assert any(t.task_key.startswith("conv2d_winograd_fused.llvm|") for t in corpus.tasks_)
    assert main(argv) == 0  # a rerun resumes: nothing measured again
    assert len(SQLiteStorage(db).records(kind="trial")) == n
    assert main([a if a != "20" else "-1" for a in argv]) == 2  # a negative --stem-trials is refused
    assert main([a if a != "3" else "-2" for a in argv]) == 2  # and a negative --conv-trials
    assert main([a if a != "4" else "-3" for a in argv]) == 2  # and a negative --dense-trials
    # a fresh task directory (another machine): a single-layer run learns from the corpus
    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path / "tasks2"))
    capsys.readouterr()
    assert main(["tune", "--conv", "48,40,40,64,3,1,1", "--trials", "2", "--repeat", "1", "--min-repeat-ms", "1",
                 "--db", str(tmp_path / "u.db"), "--corpus", str(out), "--no-progress"]) == 0
    assert "from the shipped corpus" in capsys.readouterr().out
    assert main(["corpus", "show", str(out)]) == 0
    assert corpus.machine in capsys.readouterr().out
    assert main(["corpus", "show", str(tmp_path / "none.json.gz")]) == 2
    assert "no corpus file" in capsys.readouterr().err


def _best_similarity(layer_wl, workloads) -> float:
    from tensortune.transfer.features import shape_features
    from tensortune.transfer.prior import shape_similarity

    f = shape_features(layer_wl)
    return max(shape_similarity(shape_features(w), f) for w in workloads)


def test_every_evaluation_layer_has_a_similar_corpus_shape_and_the_znver5_corpus_holds_them():
    """A held-out stem (L1, L3) or wide early layer (L4) transfers only from a similar source: the corpus's
    single layers give every evaluation layer one at similarity >= 0.5, and the shipped znver5 corpus (rebuilt
    in stops 42 and 48, extended in stop 82) measured them all."""
    from tensortune.models.corpus import corpus_ops
    from tensortune.transfer.corpus import default_corpus
    from tensortune.workloads import workload_from_key
    from tensortune.workloads.layer_tables import EVAL_LAYERS, resolve_layer

    ops = [wl for _name, wl in corpus_ops()]
    # a conv whose output columns are a prime leaves the column register tile at 1: a poor source
    for wl in ops:
        if wl.op.startswith("conv2d"):
            ow = wl.out_hw[1]
            assert any(ow % d == 0 for d in range(2, 17)), (wl, ow)
    layers = {name: resolve_layer(name)[1] for name in EVAL_LAYERS}
    for name, wl in layers.items():
        assert _best_similarity(wl, ops) >= 0.5, name
    # without the three shapes added in stop 42, L1 had no source at all (below prior.py's 0.01 cut)
    assert _best_similarity(layers["L1"], ops[:8] + ops[11:]) < 0.01
    corpus = default_corpus("znver5")
    measured = [workload_from_key(t.task_key.split("|", 1)[1]) for t in corpus.tasks_
                if t.task_key.startswith("conv2d_nchw.llvm|") and any(r.ok for r in t.records)]
    for name, wl in layers.items():
        assert _best_similarity(wl, measured) >= 0.5, name


@pytest.mark.parametrize("cpu", ["rocketlake", "znver4-no-avx512-no-gfni", "emeraldrapids", "znver3", "znver4", "znver5"])
def test_a_current_corpus_measured_each_single_layer_as_often_as_corpus_build_asks(cpu):
    """The shipped rocketlake corpus was rebuilt in stop 52 (the stem-like shapes at 4x the 64 of the others), the
    one of the Zen 4 VM that hides AVX-512 built in stop 60, the emeraldrapids one in stop 63, the znver3 one in
    stop 70, the znver5 one extended in stop 82 (its stem-like shapes had 64), the znver4 one extended in stop 91
    (stop 36's had them at 32 and no stem-like shapes): their single-layer
    tasks hold exactly the records ``corpus build --trials 64`` measures, so a change of
    :data:`CORPUS_TRIALS_FACTOR` without a rebuild, or a truncated file, fails here; and they hold the Winograd
    template the whole-model flow tunes."""
    from tensortune.models.corpus import corpus_op_trials
    from tensortune.transfer.corpus import default_corpus

    corpus = default_corpus(cpu)
    assert corpus is not None and corpus.machine.endswith(f"({cpu.replace('-no-', ' -')})")
    measured = {t.name: len(t.records) for t in corpus.tasks_ if t.name.startswith("corpus:")}
    assert measured == corpus_op_trials(64)
    assert measured["corpus:conv3x195-48k11s4"] == 256 and measured["corpus:conv96x40-96k3s1"] == 64
    assert "conv2d_winograd_fused.llvm" in corpus.templates()


@pytest.mark.parametrize("cpu", ["znver3", "znver4", "znver5"])
def test_a_corpus_with_part_1b_holds_its_convs_and_dense_layers_at_the_records_corpus_build_asks(
        cpu, tmp_path, monkeypatch):
    """Part 1b of ``corpus build`` measures each corpus model's stem (a conv on RGB input) on its own up to
    :data:`CORPUS_STEM_TRIALS` records (stop 76), every other conv of theirs, direct or Winograd, up to
    :data:`CORPUS_CONV_TRIALS` (stop 77), and every dense layer up to :data:`CORPUS_DENSE_TRIALS` (stop 78, with
    CorpusMlp); the znver3 file was extended with it in stops 76-78, the znver5 one in stop 82, the znver4 one in
    stop 91 (the other CPUs' files predate it), so a change of either constant without a rebuild, or a truncated file, fails here."""
    from tensortune.models.corpus import (
        CONV_RUN,
        CORPUS_CONV_TRIALS,
        CORPUS_DENSE_TRIALS,
        CORPUS_STEM_TRIALS,
        DENSE_RUN,
        STEM_RUN,
        is_stem,
    )
    from tensortune.models.flow import DENSE
    from tensortune.transfer.corpus import default_corpus
    from tensortune.transfer.features import conv_in_channels
    from tensortune.workloads.tir import TirWorkload

    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path))
    corpus = default_corpus(cpu)
    assert corpus is not None
    corpus.install_task_files()  # (loading the default corpus may have installed them already)

    def workload(t):
        return TirWorkload(t.task_key.split("|tir:", 1)[1])

    stems = [t for t in corpus.tasks_ if any(r.run_id.startswith(f"{STEM_RUN}-") for r in t.records)]
    assert len(stems) >= 2
    for t in stems:
        assert len(t.records) == CORPUS_STEM_TRIALS, t.name
        assert t.task_file is not None
        assert is_stem(workload(t))
    # and no other task of it is a stem: CorpusNet's 7x7/2 and CorpusWideNet's first 3x3 are the two
    tir = [t for t in corpus.tasks_ if "|tir:" in t.task_key and t.task_file is not None]
    assert {t.task_key for t in tir if is_stem(workload(t))} == {t.task_key for t in stems}
    # every other conv (CorpusNet's 10, CorpusWideNet's 8, direct and Winograd: 30) holds at least the floor, and
    # one that needed a run of its own ends at the floor
    convs = [t for t in tir if conv_in_channels(workload(t)) is not None and not is_stem(workload(t))]
    assert len(convs) == 30
    floored = 0
    for t in convs:
        own = sum(r.run_id.startswith(f"{CONV_RUN}-") for r in t.records)
        assert len(t.records) >= CORPUS_CONV_TRIALS and (own == 0 or len(t.records) == CORPUS_CONV_TRIALS), t.name
        floored += own > 0
    assert floored >= 20
    # and (stop 78) every dense layer of the corpus models (CorpusNet's and CorpusWideNet's heads, CorpusMlp's three)
    # on the dense template, at least CORPUS_DENSE_TRIALS records each
    dense = [t for t in tir if t.task_key.startswith(f"{DENSE}|")]
    assert len(dense) == 5
    for t in dense:
        own = sum(r.run_id.startswith(f"{DENSE_RUN}-") for r in t.records)
        assert len(t.records) >= CORPUS_DENSE_TRIALS and (own == 0 or len(t.records) == CORPUS_DENSE_TRIALS), t.name


def test_a_corpus_names_the_templates_it_has_no_records_of(tmp_path):
    """``tune --model`` says which of its conv and dense tasks' templates the corpus lacks (stop 59: the shipped
    znver4 corpus predated the Winograd template until stop 91; the znver3 one until stop 70). The old file is
    rebuilt here as a shipped one without its Winograd tasks."""
    from tensortune.transfer.corpus import Corpus, corpus_file_for
    from tensortune.transfer.prior import NO_TRANSFER

    wino, blocked, direct = "conv2d_winograd_fused.llvm", "conv2d_nchwc_fused.llvm", "conv2d_nchw.llvm"
    tasks = [wino, wino, blocked, None, NO_TRANSFER[0], wino, "pool.llvm"]
    with gzip.open(corpus_file_for("znver5"), "rt") as f:
        doc = json.load(f)
    doc["tasks"] = [t for t in doc["tasks"] if not t["task_key"].startswith(wino + "|")]
    with gzip.open(tmp_path / "corpus-llvm-znver5.json.gz", "wt") as f:
        json.dump(doc, f)
    old, new = Corpus.load(str(tmp_path / "corpus-llvm-znver5.json.gz")), Corpus.load(corpus_file_for("znver5"))
    assert {blocked, direct, "dense.llvm"} <= old.templates() and wino not in old.templates()
    assert wino in new.templates()
    # one count per task, most first; a task without a template or of a template that never transfers is none
    assert list(old.missing_templates(tasks).items()) == [(wino, 3), ("pool.llvm", 1)]
    assert new.missing_templates(tasks) == {"pool.llvm": 1}
    assert new.missing_templates([blocked, None]) == {}
