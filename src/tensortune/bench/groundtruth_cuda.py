"""CUDA ground-truth tables: every config of ``conv2d_nchw.cuda-small``, built here, measured on a GPU.

The two halves run on two machines (the GPU machine has no TVM):

1. here, ``tensortune groundtruth-cuda bundle --layers L1,L2,L7,L8 --out BUNDLE`` builds every valid
   config into a bundle (``measure.cuda_bundle``);
2. on the GPU, ``python -m tensortune.measure.cuda_runner BUNDLE --out RESULTS`` checks and times
   every kernel and cuDNN (``measure.cuda_runner``);
3. here again, ``tensortune groundtruth-cuda tables --bundle BUNDLE --results RESULTS`` freezes
   them into tables of the CPU tables' format (``storage.tables``), shipped in
   ``bench/tables/cuda``, so that replay, ``tensortune bench --tables`` and the conformance suite run
   the papers' GPU setting without a GPU.

Per config a table holds the GPU's median cost (``inf`` when it failed), the error kind (the ones
caught at build, ``COMPILE_DEVICE`` for a block-limit violation, and the GPU's), the build seconds
here and the run wall seconds there. Its meta holds the GPU's name, driver and clocks before and after
the layer, the timing protocol, cuDNN's time for the layer (fp32 and TF32) and the machine that built
the kernels.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.core.values import ErrorKind, Task
from tensortune.storage.tables import GroundTruth, space_fingerprint, table_path
from tensortune.templates import make_task

CUDA_TEMPLATE = "conv2d_nchw.cuda-small"
CUDA_LAYERS = ("L1", "L2", "L7", "L8")
CUDA_TABLE_DIR = Path(__file__).resolve().parent / "tables" / "cuda"
DEFAULT_ARCH = "sm_90"


def cuda_task(layer: str, arch: str = DEFAULT_ARCH) -> Task:
    from tensortune.workloads import resolve_layer

    name, wl = resolve_layer(layer)
    return make_task(wl, CUDA_TEMPLATE, {"kind": "cuda", "arch": arch}, name=name)


def build(layers: list[str], out: str | os.PathLike[str], arch: str = DEFAULT_ARCH, workers: int = 2,
          limit: int | None = None, progress: bool = True) -> dict[str, Any]:
    """Step 1: the bundle of every valid config of ``layers`` (resumes a partial bundle)."""
    from tensortune.measure.cuda_bundle import build_bundle

    tasks = [cuda_task(x, arch) for x in layers]
    bar = None
    if progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn("[bold]building CUDA kernels"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("chunks"), TimeRemainingColumn())
        bar.start()
        job = bar.add_task("build", total=None)
    try:
        def tick(done: int, total: int) -> None:
            if bar is not None:
                bar.update(job, completed=done, total=total)

        return build_bundle(tasks, out, workers=workers, limit=limit, progress=tick)
    finally:
        if bar is not None:
            bar.stop()


def table_from_results(bundle: str | os.PathLike[str], results: str | os.PathLike[str], layer: str,
                       command: str = "") -> GroundTruth:
    """Step 3 for one layer: the bundle's build outcomes and the GPU's results as a table. ValueError if
    the bundle and the template no longer agree, or a sent kernel has no result (run the runner again:
    it measures only what is missing)."""
    from tensortune.measure.cuda_bundle import load_manifest
    from tensortune.measure.cuda_runner import layer_configs, read_results

    bundle, results = Path(bundle), Path(results)
    manifest = load_manifest(bundle)
    if layer not in manifest["layers"]:
        raise ValueError(f"{bundle}: no layer {layer} (has {', '.join(manifest['layers'])})")
    lay = manifest["layers"][layer]
    task = cuda_task(layer, manifest["arch"])
    if lay["template"] != task.template or lay["space_fingerprint"] != task.space.fingerprint():
        raise ValueError(f"{bundle}: {layer} was built for another space of {lay['template']}; build it again")
    info_path = results / "gpu.json"
    if not info_path.exists():
        raise ValueError(f"{results}: no gpu.json (not a cuda_runner results folder)")
    info = json.loads(info_path.read_text())
    if layer not in info.get("layers", {}) or "cudnn" not in info["layers"][layer]:
        raise ValueError(f"{results}: {layer} was not measured (no cuDNN time for it)")
    measured = read_results(results / f"{layer}.jsonl")
    entries = layer_configs(bundle, manifest, layer)
    sent = [e for e in entries if e["error"] == 0]
    missing = [e["index"] for e in sent if e["index"] not in measured]
    if missing:
        raise ValueError(f"{results}: {len(missing)} of {len(sent)} kernels of {layer} have no result "
                         f"(first {missing[:5]}); run the runner again, it measures only those")
    sp = task.space
    valid = [i for i in range(sp.size) if sp.is_valid(sp.config(i))]
    if [e["index"] for e in entries] != valid:
        raise ValueError(f"{bundle}: {layer} holds {len(entries)} configs, the space {len(valid)} valid ones")
    cost, error, run_wall = [], [], []
    for e in entries:
        r = measured.get(e["index"], e) if e["error"] == 0 else e
        ok = int(r.get("error", 0)) == 0
        cost.append(float(r["cost"]) if ok else np.inf)
        error.append(int(r.get("error", ErrorKind.UNKNOWN)))
        run_wall.append(float(r.get("run_wall_s") or 0.0) if e["error"] == 0 else 0.0)
    layer_info = info["layers"][layer]
    machine = dict(info["machine"])
    machine["smi_before"], machine["smi_after"] = layer_info.get("smi_before", {}), layer_info.get("smi_after", {})
    from tensortune.bench.groundtruth import machine_description

    meta = {"layer": task.name, "workload": task.workload.key, "template": task.template, "target": task.target,
            "machine": machine, "built_on": machine_description() | {"nvcc": manifest["nvcc"], "tvm": manifest["tvm"]},
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "bundle_created": manifest["created"],
            "timing": info["protocol"] | {"build_workers": 1},
            "cudnn": {k: {"cost": v["cost"], "timing": v["timing"], "number": v["number"]}
                      for k, v in layer_info["cudnn"].items()},
            "cudnn_after": {k: {"cost": v["cost"], "timing": v["timing"], "number": v["number"]}
                            for k, v in layer_info.get("cudnn_after", {}).items()},
            "flops": task.flops, "session_wall_s": layer_info.get("wall_s"), "command": command,
            "space_fingerprint": space_fingerprint(sp), "n_configs": len(entries), "space_size": sp.size,
            "failed": int(sum(not np.isfinite(c) for c in cost)),
            "timing_methods": sorted({str(r.get("timing")) for r in measured.values() if "timing" in r})}
    return GroundTruth(task, meta, np.array([e["index"] for e in entries], dtype=np.int64), np.array(cost),
                       np.array(error, dtype=np.int16), np.array([float(e["build_s"]) for e in entries]),
                       np.array(run_wall))


def write_tables(bundle: str | os.PathLike[str], results: str | os.PathLike[str],
                 out_dir: str | os.PathLike[str] | None = None, layers: list[str] | None = None,
                 command: str = "") -> list[GroundTruth]:
    """Step 3: a table per layer of the bundle (or ``layers``) into ``out_dir`` (default: the package's
    ``bench/tables/cuda``)."""
    from tensortune.measure.cuda_bundle import load_manifest

    names = layers or list(load_manifest(bundle)["layers"])
    tables = [table_from_results(bundle, results, x, command) for x in names]
    for gt in tables:
        gt.save(table_path(gt.name, out_dir or CUDA_TABLE_DIR))
    return tables


def cudnn_gflops(gt: GroundTruth, kind: str = "fp32") -> float | None:
    """GFLOP/s of cuDNN on the table's layer, measured in the same GPU session before and after the
    layer's kernels: the faster of the two (None: not a GPU table)."""
    costs = [m[kind]["cost"] for m in (gt.meta.get("cudnn", {}), gt.meta.get("cudnn_after", {})) if kind in m]
    return gt.task.flops / min(costs) / 1e9 if costs else None
