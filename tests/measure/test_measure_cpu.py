"""Real TVM kernels built and run on this CPU."""

import numpy as np
import pytest

from tensortune.core.values import ErrorKind, MeasureInput
from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer
from tensortune.templates import make_task
from tensortune.workloads import Dense

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def measurer():
    m = TvmMeasurer(build_workers=2, timing=TimingPolicy(repeat=3, min_repeat_ms=5), run_timeout=20)
    yield m
    m.close()


def test_conv2d_configs_build_run_and_check(measurer, small_conv, cpu_target):
    task = make_task(small_conv, "conv2d_nchw.llvm", cpu_target)
    cfgs = task.space.sample(6, np.random.default_rng(0))
    res = measurer.measure([MeasureInput(task, c) for c in cfgs])
    assert len(res) == 6
    for r in res:
        assert r.ok, r.message
        assert len(r.costs) == 3 and all(c > 0 for c in r.costs)
        assert r.build_seconds > 0


def test_strided_padded_dilated_conv(measurer, cpu_target):
    from tensortune.workloads import Conv2d

    wl = Conv2d.make(1, 8, 13, 11, 16, 3, 2, 1, 2)
    task = make_task(wl, "conv2d_nchw.llvm", cpu_target)
    res = measurer.measure([MeasureInput(task, c) for c in task.space.sample(3, np.random.default_rng(1))])
    assert all(r.ok for r in res), [r.message for r in res]


def test_dense_template(measurer, cpu_target):
    task = make_task(Dense.make(4, 64, 48), "dense.llvm", cpu_target)
    res = measurer.measure([MeasureInput(task, c) for c in task.space.sample(4, np.random.default_rng(2))])
    assert all(r.ok for r in res), [r.message for r in res]


def test_faulty_kernels_are_recorded_and_tuning_goes_on(cpu_target, db_path):
    """Segfault, hang and wrong answer from real compiled kernels; the run completes."""
    from tensortune.storage import SQLiteStorage
    from tensortune.tuners import Budget, Tuner, create

    task = make_task(Dense.make(4, 32, 16), "faulty_dense.llvm", cpu_target)
    with TvmMeasurer(build_workers=2, run_timeout=4, timing=TimingPolicy(repeat=2, min_repeat_ms=1)) as m:
        s = Tuner(task, create("grid", task.space), m, SQLiteStorage(db_path), Budget(trials=10), batch_size=10).run()
    assert s.trials == 10
    recs = SQLiteStorage(db_path).records(run_id=s.run_id, kind="trial")
    by = {}
    for r in recs:
        by.setdefault(r.config["fault"], set()).add(r.error)
    assert by["none"] == {ErrorKind.NONE}
    assert by["wrong"] == {ErrorKind.WRONG_ANSWER}
    assert by["segfault"] == {ErrorKind.RUNTIME}
    assert by["hang"] == {ErrorKind.RUN_TIMEOUT}
    assert by["instantiate"] == {ErrorKind.INSTANTIATION}
    seg = next(r for r in recs if r.config["fault"] == "segfault")
    assert "SIGSEGV" in seg.message
    assert s.best_remeasured and s.best_config["fault"] == "none"


def test_build_timeout(cpu_target, small_conv):
    task = make_task(small_conv, "conv2d_nchw.llvm", cpu_target)
    cfg = task.space.sample(1, np.random.default_rng(3))[0]
    with TvmMeasurer(build_workers=1, build_timeout=0.01) as m:
        r = m.measure([MeasureInput(task, cfg)])[0]
        assert r.error == ErrorKind.BUILD_TIMEOUT
        m.build_timeout = 60  # the killed build worker is replaced
        assert m.measure([MeasureInput(task, cfg)])[0].ok


def test_rewritten_weight_layout_does_not_poison_later_configs(monkeypatch) -> None:
    """A config whose schedule rewrote a weight's layout runs on random weights in that layout, unchecked
    (as MetaSchedule's runner); the next configs of the same worker must still see the real inputs. They
    once inherited the random weights through the per-worker input cache: every later config with the same
    rewritten layout was checked against the reference and stored as a false WRONG_ANSWER (ResNet-18,
    1,000 measurements: 250 of 1,000 records, up to 47% of a task's)."""
    import numpy as np

    from tensortune.measure import tvm_jobs

    x = np.arange(12, dtype="float32").reshape(3, 4)
    spec = {"workload": "fake", "template": "ms-space.llvm", "target": "{}"}
    monkeypatch.setitem(tvm_jobs._PREPARED, ("fake", "ms-space.llvm"), ([x], 2 * x))
    monkeypatch.setattr(tvm_jobs, "_workload", lambda _spec: None)
    monkeypatch.setattr(tvm_jobs, "_timed", lambda *_a: [1e-3])

    class Tensor:
        def __init__(self, a: np.ndarray) -> None:
            self.a = a.copy()

        def numpy(self) -> np.ndarray:
            return self.a

    def main(inp: Tensor, out: Tensor) -> None:  # doubles its input, whatever its layout
        out.a[...] = 2 * inp.a.reshape(out.a.shape)

    class Dev:
        def sync(self) -> None:
            pass

        def dlpack_device_type(self) -> int:
            return 2  # not the CPU: no core pinning in this test process

    lib = {"main": main}

    def run(shapes: list[list[int]] | None) -> dict:
        return tvm_jobs._execute(lib, Dev(), spec, {}, {}, lambda a, _dev: Tensor(a), shapes)

    rewritten = [[4, 3], [3, 4]]
    assert run(rewritten) == {"costs": [1e-3]}  # random weights in the new layout: unchecked
    assert run(rewritten) == {"costs": [1e-3]}  # the same layout again: still the real inputs, rewritten anew
    assert run(None) == {"costs": [1e-3]}       # the workload's own layout: checked against the reference
    assert tvm_jobs._PREPARED[("fake", "ms-space.llvm")][0][0] is x
    bad = tvm_jobs._execute({"main": lambda i, o: o.a.__setitem__(..., 3 * i.a)}, Dev(), spec, {}, {},
                            lambda a, _dev: Tensor(a), None)
    assert bad["error"] == 5  # a wrong kernel is still caught (WRONG_ANSWER)


def test_random_weights_of_a_rewritten_layout_are_drawn_once_per_worker_and_never_written() -> None:
    """VGG-16 fc6's random 4096 x 25088 weights took 3.0-3.1 s of each of its 3.2 s measurements (stop 68);
    each config may rewrite to its own shape, so they are views of one buffer per worker and dtype, drawn
    once (grown for a larger layout), read-only (a measurement copies them into its tensors)."""
    import numpy as np

    from tensortune.measure import tvm_jobs
    from tensortune.measure.tvm_jobs import random_layout

    tvm_jobs._RANDOM.clear()
    a = random_layout((5, 7), "float32", 0)
    assert a.shape == (5, 7) and a.dtype == np.float32 and np.isfinite(a).all() and a.std() > 0
    buf = tvm_jobs._RANDOM["float32"]
    b = random_layout((7, 5), "float32", 0)  # another config's blocking of the same weights: no new draw
    assert b.shape == (7, 5) and tvm_jobs._RANDOM["float32"] is buf and np.shares_memory(a, b)
    c = random_layout((5, 7), "float32", 1)  # another argument: its own values
    assert not np.array_equal(c, a)
    big = random_layout((9, 9), "float32", 0)  # a larger layout grows the buffer
    assert big.shape == (9, 9) and tvm_jobs._RANDOM["float32"].size >= 81
    assert random_layout((5, 7), "float64", 0).dtype == np.float64
    with pytest.raises(ValueError, match="read-only"):
        a[0, 0] = 1.0



def test_a_worker_moving_to_another_task_drops_the_last_tasks_random_layouts(monkeypatch) -> None:
    import numpy as np

    from tensortune.measure import tvm_jobs

    class Wl:
        def make_inputs(self, seed: int) -> list:
            return [np.ones(3, "float32")]

        def reference(self, inputs: list) -> np.ndarray:
            return inputs[0]

    monkeypatch.setattr(tvm_jobs, "_workload", lambda _spec: Wl())
    tvm_jobs._prepared({"workload": "w1", "template": "t"})
    tvm_jobs.random_layout((1000,), "float32", 0)
    tvm_jobs._prepared({"workload": "w1", "template": "t"})  # the same task: kept
    assert tvm_jobs._RANDOM["float32"].size >= 1000
    tvm_jobs._prepared({"workload": "w2", "template": "t"})  # another task: dropped, memory back
    assert "float32" not in tvm_jobs._RANDOM


def _other_threads_cpu_s(pid: int, window_s: float) -> float:
    """CPU seconds that the threads of process ``pid`` other than its main thread use over ``window_s``."""
    import os
    import time

    def ticks() -> dict[str, int]:
        out = {}
        for tid in os.listdir(f"/proc/{pid}/task"):
            if tid == str(pid):
                continue
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:  # the thread ended
                continue
            out[tid] = int(fields[11]) + int(fields[12])  # utime + stime
        return out

    before = ticks()
    time.sleep(window_s)
    after = ticks()
    return sum(t - before.get(tid, 0) for tid, t in after.items()) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self/task"), reason="reads /proc (Linux)")
def test_nothing_in_the_runner_spins_beside_the_kernel_it_times(cpu_target) -> None:
    """Stop 107/108: the runner computes a task's reference with NumPy just before it times the task's first
    config, and NumPy's OpenBLAS threads then spun for ~0.1 s beside that timing (L6's first config read at
    0.21-0.49 of its speed). Right after the runner prepares a task whose reference is a threaded matmul,
    no other thread of the runner may use the CPU."""
    from tensortune.workloads import Conv2d

    tasks = [make_task(Conv2d.make(1, c, 28, 28, 64, 3, 1, 1), "conv2d_nchw.llvm", cpu_target) for c in (64, 96)]
    m = TvmMeasurer(build_workers=1, timing=TimingPolicy(repeat=1, min_repeat_ms=1), run_timeout=60)
    try:
        worker = m._runners.workers[0]
        busy = []
        for task in tasks:  # a fresh runner, then the same one moving to another task (a new reference each)
            assert m._prepare(worker, task.spec()).status == "ok"
            busy.append(_other_threads_cpu_s(worker._proc.pid, 0.15))
    finally:
        m.close()
    assert max(busy) < 0.03, f"other threads of the runner used {busy} CPU seconds in 0.15 s after preparing"
