"""The cold protocol flushes a kernel's arguments from the CPU caches only where they fit in the last-level
cache (``core.caches``): VGG-16's 411 MB fc6 weights took a second of ``clflush`` per timed run."""

from pathlib import Path

import numpy as np

from tensortune.core import caches
from tensortune.measure import tvm_jobs


def _cache(base: Path, index: int, level: int, kind: str, size: str) -> None:
    d = base / f"index{index}"
    d.mkdir(parents=True)
    (d / "level").write_text(f"{level}\n")
    (d / "type").write_text(f"{kind}\n")
    (d / "size").write_text(f"{size}\n")


def test_cache_sizes_come_from_sysfs(tmp_path: Path) -> None:
    _cache(tmp_path, 0, 1, "Data", "48K")
    _cache(tmp_path, 1, 1, "Instruction", "32K")
    _cache(tmp_path, 2, 2, "Unified", "2048K")
    _cache(tmp_path, 3, 3, "Unified", "300M")
    assert caches.cache_bytes(1, "Data", tmp_path) == 48 * 1024
    assert caches.cache_bytes(1, "Instruction", tmp_path) == 32 * 1024
    assert caches.cache_bytes(2, base=tmp_path) == 2 * 1024**2
    assert caches.last_level_cache_bytes(tmp_path) == 300 * 1024**2
    assert caches.cache_bytes(4, base=tmp_path) is None
    assert caches.last_level_cache_bytes(tmp_path / "none") is None  # no sysfs: unknown


def test_arguments_are_flushed_only_where_they_fit_the_last_level_cache() -> None:
    inp, weight, out = np.zeros(1024, "float32"), np.zeros((1024, 1024), "float32"), np.zeros(1024, "float16")
    assert caches.tensor_nbytes(weight) == 4 * 1024**2 and caches.tensor_nbytes(out) == 2048
    flushed = 4 * 1024**2 + 2048  # every argument but the input
    assert caches.cold_preproc([inp, weight, out], flushed) == "cache_flush_cpu_non_first_arg"
    assert caches.cold_preproc([inp, weight, out], flushed - 1) == ""
    assert caches.cold_preproc([weight, inp, out], 8 * 1024) == "cache_flush_cpu_non_first_arg"  # input not counted
    assert caches.cold_preproc([inp, weight, out], None) == "cache_flush_cpu_non_first_arg"  # unknown cache: flush


class _Dev:
    def dlpack_device_type(self) -> int:
        return 1  # a CPU


class _Lib:
    def __init__(self) -> None:
        self.preproc: list[str] = []

    def time_evaluator(self, _name: str, _dev: object, number: int, repeat: int, min_repeat_ms: int,
                       f_preproc: str = "") -> object:
        assert number == 1 and min_repeat_ms == 0  # cold: one run per repeat, flushed or not
        self.preproc.append(f_preproc)
        return lambda *_args: type("R", (), {"results": [1e-3] * repeat})()


def test_a_cold_measurement_skips_the_flush_of_arguments_larger_than_the_cache(monkeypatch) -> None:
    args = [np.zeros(16, "float32"), np.zeros((1024, 1024), "float32"), np.zeros(16, "float32")]
    timing = {"repeat": 3, "min_repeat_ms": 0, "cold": True}
    lib = _Lib()
    monkeypatch.setattr(caches, "last_level_cache_bytes", lambda: 1024**2)  # 1 MiB: the 4 MiB weight exceeds it
    assert tvm_jobs._timed(lib, _Dev(), args, timing) == [1e-3] * 3
    assert tvm_jobs._timed(lib, _Dev(), args, timing, remote=True) == [1e-3] * 3  # an RPC device's caches: flush
    monkeypatch.setattr(caches, "last_level_cache_bytes", lambda: 64 * 1024**2)
    tvm_jobs._timed(lib, _Dev(), args, timing)
    assert lib.preproc == ["", "cache_flush_cpu_non_first_arg", "cache_flush_cpu_non_first_arg"]


def test_a_real_kernel_times_cold_without_the_flush(monkeypatch, tmp_path: Path) -> None:
    """TVM's time evaluator takes the empty preprocessing name: a compiled kernel still gets its timed runs."""
    import tvm
    from tvm import te

    a = te.placeholder((256,), name="a")
    w = te.placeholder((256,), name="w")
    c = te.compute((256,), lambda i: a[i] * w[i], name="c")
    tvm.compile(te.create_prim_func([a, w, c]), target=tvm.target.Target({"kind": "llvm"})).export_library(
        str(tmp_path / "k.so"))
    lib = tvm.runtime.load_module(str(tmp_path / "k.so"))  # as the runner loads a built kernel
    dev = tvm.cpu(0)
    args = [tvm.runtime.tensor(np.ones(256, "float32"), dev) for _ in range(3)]
    monkeypatch.setattr(caches, "last_level_cache_bytes", lambda: 16)  # smaller than the 2 KiB flushed
    costs = tvm_jobs._timed(lib, dev, args, {"repeat": 3, "min_repeat_ms": 0, "cold": True})
    assert len(costs) == 3 and all(c > 0 for c in costs)
    np.testing.assert_allclose(args[2].numpy(), np.ones(256))
