"""Glimpse's Blueprints: spec tables of three families, standardised PCA, and its information loss."""

import subprocess
import sys

import numpy as np
import pytest

from tensortune.hardware import Blueprint, cpu_specs, gpu_specs, information_loss, vta_specs


def test_gpu_table_spans_pascal_to_hopper():
    specs = gpu_specs()
    assert len(specs) >= 10
    assert {s.target["arch"] for s in specs} >= {"pascal", "volta", "turing", "ampere", "ada", "hopper"}
    for s in specs:  # datasheet consistency: peak FP32 = 2 x cores x boost clock (within rounding)
        f = s.features
        assert f["peak_tflops"] == pytest.approx(2 * f["fp32_cores"] * f["boost_mhz"] / 1e6, rel=0.03), s.name
        assert f["smem_per_block_kib"] <= f["smem_per_sm_kib"]


def test_information_loss_falls_to_zero_and_embeddings_match():
    specs = gpu_specs()
    curve = information_loss(specs)
    rmse = [r for _, r in curve]
    assert all(a >= b - 1e-12 for a, b in zip(rmse[:-1], rmse[1:], strict=True))  # more dimensions never lose more
    assert rmse[0] > 0.1 and rmse[-1] < 1e-9
    bp = Blueprint.fit(specs, 3)
    e = bp.embed(specs)
    assert e.shape == (len(specs), 3) and np.allclose(e.mean(axis=0), 0.0, atol=1e-9)
    with pytest.raises(ValueError):
        Blueprint.fit(specs, 0)
    with pytest.raises(ValueError):
        bp.embed(cpu_specs())  # another family's features


def test_cpu_and_vta_families():
    cpus = cpu_specs()
    assert {s.target["mcpu"] for s in cpus} == {"x86-64-v2", "haswell", "skylake-avx512", "znver4"}
    # only what this CPU can run is measurable here: an AVX2 CPU (this test's flags) runs two of the ISA levels
    from tensortune.hardware.specs import cpu_flags, runnable_targets

    avx2 = frozenset({"sse2", "ssse3", "sse4_2", "popcnt", "avx", "avx2", "fma", "bmi2", "movbe"})
    assert runnable_targets(avx2) == ["x86-64-v2", "haswell"]
    assert {s.target["mcpu"] for s in cpu_specs(runnable_only=True, flags=avx2)} == {"x86-64-v2", "haswell"}
    assert runnable_targets(avx2 | {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"})[-1] == "skylake-avx512"
    assert "sse2" in cpu_flags()  # this machine's flags are read (an x86-64 Linux machine)
    assert all(s.features["l1d_kib"] > 0 for s in cpus)
    v = vta_specs({"BATCH": (1, 2), "BLOCK_IN": (8, 16), "BLOCK_OUT": (16,), "LOG_INP_BUFF_SIZE": (15,),
                   "LOG_WGT_BUFF_SIZE": (18,), "LOG_ACC_BUFF_SIZE": (17,), "LOG_UOP_BUFF_SIZE": (15,),
                   "BUS_WIDTH": (64, 128)})
    assert len(v) == 8 and {s.features["macs_per_cycle"] for s in v} == {128.0, 256.0, 512.0}


def test_cli_prints_the_curve_and_plots(tmp_path):
    out = tmp_path / "loss.png"
    r = subprocess.run([sys.executable, "-m", "tensortune.cli.main", "blueprint", "--family", "gpu", "--plot", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "d=1:" in r.stdout and out.stat().st_size > 1000
    bad = subprocess.run([sys.executable, "-m", "tensortune.cli.main", "blueprint", "--plot", str(tmp_path / "no" / "x.png")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "does not exist" in bad.stderr
