"""The build half of the GPU path (no GPU needed): the reduced CUDA space, kernels lowered with their
launch dimensions, block-limit violations caught before anything is sent, bundles compiled with nvcc
(skipped where nvcc is missing), and the GPU runner's parts that need no GPU."""

from __future__ import annotations

import json
import lzma
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tensortune.core.values import ErrorKind
from tensortune.templates import make_task
from tensortune.workloads import resolve_layer

TARGET = {"kind": "cuda", "arch": "sm_90"}
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
REPO = Path(__file__).resolve().parents[2]


def small(layer: str):
    name, wl = resolve_layer(layer)
    return make_task(wl, "conv2d_nchw.cuda-small", TARGET, name)


@pytest.mark.parametrize("layer", ["L1", "L2", "L7", "L8"])
def test_reduced_space_is_part_of_the_full_one(layer):
    t = small(layer)
    full = make_task(t.workload, "conv2d_nchw.cuda", TARGET, layer).space
    assert 500 <= t.space.size <= 3000
    assert t.space.names == full.names
    for i in range(0, t.space.size, 97):
        values = t.space.values(t.space.config(i))
        assert full.values(full.from_json(t.space.to_json(t.space.config(i)))) == values


def test_kernels_carry_the_configs_launch_dimensions():
    from tensortune.measure.cuda_bundle import build_config

    t = small("L8")
    sp = t.space
    for i in (0, 500, 1000):
        v = sp.values(sp.config(i))
        e = build_config(t, i)
        if e["error"]:
            continue
        (k,) = e["kernels"]
        assert k["grid"] == [v["tile_x"][0], v["tile_y"][0], v["tile_f"][0]]  # batch 1 fused into z
        assert k["block"] == [v["tile_x"][2], v["tile_y"][2], v["tile_f"][2]]
        assert sorted(k["args"]) == ["conv", "data", "kernel"]
        preamble, body = e["source"]
        assert 'extern "C" __global__ void __launch_bounds__' in body and k["name"] in body
        assert "main_kernel" not in body.replace(k["name"], "")


def test_block_limit_violations_are_never_sent():
    from tensortune.measure.cuda_bundle import build_config

    t = small("L8")
    sp = t.space
    bad = next(i for i in range(sp.size)
               if (lambda v: v["tile_f"][2] * v["tile_y"][2] * v["tile_x"][2] > 1024)(sp.values(sp.config(i))))
    e = build_config(t, bad)
    assert e["error"] == ErrorKind.COMPILE_DEVICE and "threads per block (limit 1024)" in e["message"]
    assert "kernels" not in e and "source" not in e


def test_ptxas_report_is_read_per_kernel():
    from tensortune.measure.cuda_bundle import ptxas_report

    text = ("ptxas info    : Compiling entry function 'c1_main_kernel' for 'sm_90'\n"
            "ptxas info    : Function properties for c1_main_kernel\n"
            "    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
            "ptxas info    : Used 40 registers, used 1 barriers, 4992 bytes smem\n"
            "ptxas info    : Compiling entry function 'c2_main_kernel' for 'sm_90'\n"
            "ptxas info    : Used 128 registers\n")
    assert ptxas_report(text) == {"c1_main_kernel": {"registers": 40, "spill_bytes": 12},
                                  "c2_main_kernel": {"registers": 128}}


@needs_nvcc
def test_bundle_builds_resumes_and_refuses_another_space(tmp_path):
    from tensortune.measure.cuda_bundle import build_bundle, load_manifest
    from tensortune.measure.cuda_runner import layer_configs

    t = small("L8")
    out = tmp_path / "b"
    m = build_bundle([t], out, workers=1, limit=6)
    lay = m["layers"]["L8"]
    assert lay["n_configs"] == 6 and lay["chunks"] == ["L8-0000"] and lay["shapes"]["kernel"] == [512, 512, 3, 3]
    entries = layer_configs(out, load_manifest(out), "L8")
    assert [e["index"] for e in entries] == list(range(6))
    sent = [e for e in entries if e["error"] == 0]
    assert sent, entries
    cubin = lzma.decompress((out / sent[0]["module"]).read_bytes())
    assert cubin[:4] == b"\x7fELF"
    for e in sent:
        (k,) = e["kernels"]
        assert k["name"].encode() in cubin and k["registers"] > 0
    stamp = (out / "L8-0000.json").stat().st_mtime_ns
    build_bundle([t], out, workers=1, limit=6)  # resume: nothing left to build
    assert (out / "L8-0000.json").stat().st_mtime_ns == stamp
    other = make_task(t.workload, "conv2d_nchw.cuda", TARGET, "L8")
    with pytest.raises(ValueError, match="another space or template"):
        build_bundle([other], out, workers=1, limit=6)


@needs_nvcc
def test_fault_bundle_builds(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import fault_bundle
    finally:
        sys.path.pop(0)
    fault_bundle.build(tmp_path)
    configs = json.loads((tmp_path / "faults-0000.json").read_text())["configs"]
    assert {c["index"] for c in configs if c["error"] == 0} == set(fault_bundle.EXPECTED)
    names = {c["kernels"][0]["name"] for c in configs if c["error"] == 0}
    cubin = lzma.decompress((tmp_path / "faults-0000.0.cubin.xz").read_bytes())
    assert all(n.encode() in cubin for n in names)


def test_runner_needs_no_tvm_and_refuses_bad_input(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    code = ("import sys; sys.modules['tvm'] = None\n"
            "import tensortune.measure.cuda_runner as r\n"
            "print(sorted(m for m in sys.modules if m.startswith('tensortune')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert "tensortune.templates" not in out and "tensortune.measure.cuda_runner" in out
    p = subprocess.run([sys.executable, "-m", "tensortune.measure.cuda_runner", str(tmp_path), "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "manifest.json" in p.stderr


def test_results_survive_a_torn_line(tmp_path):
    from tensortune.measure.cuda_runner import append, done_indices

    f = tmp_path / "L8.jsonl"
    append(f, {"index": 3, "error": 0, "cost": 1e-5})
    append(f, {"index": 7, "error": 5})
    with open(f, "a") as h:
        h.write('{"index": 9, "err')  # the process died while writing
    assert done_indices(f) == {3, 7}


def test_a_missing_chunk_is_an_error(tmp_path):
    from tensortune.measure.cuda_runner import layer_configs

    manifest = {"layers": {"L8": {"chunks": ["L8-0000"]}}}
    with pytest.raises(ValueError, match="L8-0000 is missing"):
        layer_configs(tmp_path, manifest, "L8")


@needs_nvcc
def test_bundle_of_any_conv_workload(tmp_path):
    """Not only the evaluation layers: the build workers rebuild the task from its workload key."""
    from tensortune.measure.cuda_bundle import build_bundle, load_manifest
    from tensortune.measure.cuda_runner import layer_configs
    from tensortune.workloads import Conv2d

    t = make_task(Conv2d.make(1, 16, 14, 14, 32, 3, 1, 1), "conv2d_nchw.cuda", TARGET, "my-conv")
    m = build_bundle([t], tmp_path, workers=1, limit=3)
    assert m["layers"]["my-conv"]["shapes"]["conv"] == [1, 32, 14, 14]
    assert len(layer_configs(tmp_path, load_manifest(tmp_path), "my-conv")) == 3
