"""Build CUDA kernels on this machine for a GPU machine that has no TVM: a *bundle*.

TVM's CUDA codegen and ``nvcc`` work without a GPU, so the expensive half of a measurement (instantiate
the template, check the block limits, generate CUDA, compile it for ``sm_XX``) happens here, and the
GPU machine only loads, checks and times the compiled kernels (``measure.cuda_runner``, which imports
neither TVM nor the rest of tensortune).

A bundle is a folder:

- ``manifest.json``: the format, the architecture, nvcc's and TVM's versions, and per layer its
  workload, template, target, space fingerprint, FLOPs, the convolution's shapes (for the runner's
  cuDNN reference) and its chunk names.
- per chunk of up to ``CHUNK`` configs, ``<layer>-<k>.json`` (per config: index, error kind and message
  when it was caught here, build seconds, and its kernels with their launch dimensions and argument
  order) and ``<layer>-<k>.<m>.cubin.xz`` (the compiled kernels, ``c<index>_<kernel name>``).

Configs are built in the space's index order, so chunk ``k`` always holds the same configs; a chunk's
``.json`` is written last and atomically, so an interrupted export resumes at the first missing chunk.
A config that exceeds a block's threads or shared memory (TVM's ``VerifyGPUCode``) is recorded as
``COMPILE_DEVICE`` here and never sent.
"""

from __future__ import annotations

import datetime as _dt
import json
import lzma
import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from tensortune.core.values import ErrorKind, Task

FORMAT = "tensortune-cuda-bundle/1"
CHUNK = 64
ROLES = ("data", "kernel", "conv")  # the template's buffers: input, weights, output
_KERNEL_NAME = re.compile(r"\bmain_kernel(?:_\d+)?\b")


def lower_kernels(mod: Any, target: Any) -> tuple[list[dict[str, Any]], str | None]:
    """The device kernels of a scheduled module as ``tvm.compile`` lowers them: per kernel its name,
    grid and block dimensions and argument roles; and the block-limit violation, if any (None: valid)."""
    from tvm import s_tir

    from tensortune.measure.tvm_jobs import describe_gpu_kernel, lower_gpu

    lowered, limits = lower_gpu(mod, target)
    kernels = []
    for gv, func in lowered.functions_items():
        attrs = func.attrs or {}
        if "tirx.kernel_launch_params" not in attrs:
            continue  # the host function
        script = func.script()
        if not s_tir.analysis.verify_gpu_code(func, limits):
            return [], describe_gpu_kernel(script, limits)
        tags = [str(t) for t in attrs["tirx.kernel_launch_params"]]
        if any("dyn_shared" in t for t in tags):
            return [], "kernel uses dynamic shared memory, which the bundle format does not carry"
        ext = {tag: int(n) for tag, n in re.findall(r'launch_thread\("((?:blockIdx|threadIdx)\.[xyz])", (\d+)\)',
                                                     script)}
        args = []
        for p in func.params:
            role = str(p.name).removesuffix("_ptr")
            if role not in ROLES:
                return [], f"kernel argument {p.name!r} is not one of the template's buffers {ROLES}"
            args.append(role)
        kernels.append({"name": str(gv.name_hint),
                        "grid": [ext.get(f"blockIdx.{a}", 1) for a in "xyz"],
                        "block": [ext.get(f"threadIdx.{a}", 1) for a in "xyz"],
                        "args": args})
    kernels.sort(key=lambda k: (len(k["name"]), k["name"]))  # main_kernel, main_kernel_1, ...: call order
    return kernels, None


def split_source(src: str) -> tuple[str, str]:
    """TVM's CUDA source as (preamble, kernels): everything before the first ``extern "C" __global__``."""
    k = src.find('extern "C" __global__')
    if k < 0:
        raise ValueError("no __global__ function in the generated CUDA source")
    return src[:k], src[k:]


def build_config(task: Task, index: int) -> dict[str, Any]:
    """Instantiate, check and generate CUDA for one config: its entry (without the compiled code) and,
    when it is valid, ``source`` = (preamble, kernels renamed ``c<index>_...``)."""
    import tvm

    from tensortune.measure.tvm_jobs import _short, _tvm_target
    from tensortune.templates import get_template

    t0 = time.perf_counter()
    entry: dict[str, Any] = {"index": int(index), "error": 0}
    try:
        mod = get_template(task.template).instantiate(task.workload, task.space.values(task.space.config(index)))
    except Exception as e:
        return entry | {"error": int(ErrorKind.INSTANTIATION), "message": _short(e),
                        "build_s": time.perf_counter() - t0}
    target = _tvm_target(task.target_json)
    try:
        kernels, problem = lower_kernels(mod, target)
        if problem is None:
            src = tvm.compile(mod, target=target).mod.imports[0].inspect_source()
    except Exception as e:
        return entry | {"error": int(ErrorKind.COMPILE_DEVICE), "message": _short(e),
                        "build_s": time.perf_counter() - t0}
    if problem is not None:
        return entry | {"error": int(ErrorKind.COMPILE_DEVICE), "message": problem,
                        "build_s": time.perf_counter() - t0}
    preamble, body = split_source(src)
    body = _KERNEL_NAME.sub(lambda m: f"c{index}_{m.group(0)}", body)
    for k in kernels:
        k["name"] = f"c{index}_{k['name']}"
    return entry | {"kernels": kernels, "build_s": time.perf_counter() - t0, "source": (preamble, body)}


def nvcc_cubin(code: str, arch: str, workdir: Path) -> tuple[bytes, str]:
    """Compile ``code`` to a cubin with TVM's own nvcc flags (``tvm.support.nvcc``: -O3, fast math, its
    ptxas options); (cubin bytes, ptxas's report). RuntimeError with nvcc's message if it fails."""
    from tvm.support import nvcc

    cu, out = workdir / "chunk.cu", workdir / "chunk.cubin"
    cu.write_text(code)
    flags = [f"--ptxas-options={','.join(nvcc._ptxas_option_flags())}"]
    cmd = ["nvcc", "--cubin", "-O3", "-arch", arch, "-U__CUDA_NO_HALF_OPERATORS__",
           "-U__CUDA_NO_HALF_CONVERSIONS__", "--expt-relaxed-constexpr", "--expt-extended-lambda",
           "--use_fast_math", "-diag-suppress", "177", *flags, "-o", str(out), str(cu)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-2000:] or f"nvcc exited with {proc.returncode}")
    return out.read_bytes(), proc.stderr


_PTXAS_FUNC = re.compile(r"Compiling entry function '(\w+)'|Function properties for (\w+)")
_PTXAS_USED = re.compile(r"Used (\d+) registers")
_PTXAS_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def ptxas_report(text: str) -> dict[str, dict[str, int]]:
    """Per kernel, the registers and spill bytes ptxas reported (``-v``)."""
    out: dict[str, dict[str, int]] = {}
    name = None
    for line in text.splitlines():
        m = _PTXAS_FUNC.search(line)
        if m:
            name = m.group(1) or m.group(2)
            out.setdefault(name, {})
            continue
        if name is None:
            continue
        if (m := _PTXAS_USED.search(line)):
            out[name]["registers"] = int(m.group(1))
        if (m := _PTXAS_SPILL.search(line)):
            out[name]["spill_bytes"] = int(m.group(1)) + int(m.group(2))
    return out


def build_chunk(task: Task, indices: Sequence[int], arch: str, folder: str, stem: str) -> dict[str, Any]:
    """Build one chunk into ``folder``: compile its valid configs together (one nvcc run per distinct
    preamble), write the cubins, then the chunk's JSON. A chunk nvcc rejects is compiled config by
    config, and the configs nvcc rejects alone are recorded as ``COMPILE_DEVICE``."""
    import tempfile

    entries = [build_config(task, i) for i in indices]
    groups: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        if "source" in e:
            groups.setdefault(e["source"][0], []).append(e)
    modules: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tt-nvcc-") as tmp:
        for preamble, members in groups.items():
            todo = [members]
            while todo:
                group = todo.pop()
                t0 = time.perf_counter()
                try:
                    cubin, report = nvcc_cubin(preamble + "\n".join(e["source"][1] for e in group), arch, Path(tmp))
                except RuntimeError as err:
                    if len(group) > 1:
                        todo.extend([g] for g in group)
                        continue
                    group[0].update(error=int(ErrorKind.COMPILE_DEVICE), message=f"nvcc: {err}"[:2000])
                    group[0].pop("kernels", None)
                    continue
                share = (time.perf_counter() - t0) / len(group)
                name = f"{stem}.{len(modules)}.cubin.xz"
                (Path(folder) / name).write_bytes(lzma.compress(cubin, preset=9))
                ptxas = ptxas_report(report)
                for e in group:
                    e["build_s"] += share
                    e["module"] = name
                    for k in e["kernels"]:
                        k.update(ptxas.get(k["name"], {}))
                modules.append(name)
    for e in entries:
        e.pop("source", None)
        e["build_s"] = round(e["build_s"], 4)
    doc = {"layer": task.name, "configs": entries}
    tmp_json = Path(folder) / f"{stem}.json.tmp"
    tmp_json.write_text(json.dumps(doc, separators=(",", ":")))
    os.replace(tmp_json, Path(folder) / f"{stem}.json")
    return {"stem": stem, "n": len(entries), "sent": sum(e["error"] == 0 for e in entries)}


def _build_chunk_job(args: tuple[str, str, str, str, list[int], str, str, str]) -> dict[str, Any]:
    name, workload_key, template, target_json, indices, arch, folder, stem = args
    from tensortune.templates import make_task
    from tensortune.workloads import workload_from_key

    task = make_task(workload_from_key(workload_key), template, json.loads(target_json), name=name)
    return build_chunk(task, indices, arch, folder, stem)


def nvcc_version() -> str:
    try:
        out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(f"nvcc is needed to build a CUDA bundle and could not be run: {e}") from None
    m = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return m.group(2) if m else out.strip().splitlines()[-1]


def conv_shapes(task: Task) -> dict[str, Any]:
    wl = task.workload
    oh, ow = wl.out_hw
    return {"data": [wl.batch, wl.in_channels, wl.height, wl.width],
            "kernel": [wl.out_channels, wl.in_channels, *wl.kernel],
            "conv": [wl.batch, wl.out_channels, oh, ow],
            "stride": list(wl.stride), "padding": list(wl.padding), "dilation": list(wl.dilation)}


def build_bundle(tasks: Sequence[Task], out_dir: str | os.PathLike[str], workers: int = 2,
                 limit: int | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Build every valid config of each task's space (its first ``limit`` valid ones, if given) into the
    bundle folder ``out_dir``, ``workers`` chunks at a time; chunks already there are kept (resume).
    Returns the manifest."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        if task.target.get("kind") != "cuda":
            raise ValueError(f"{task.name}: a CUDA bundle needs a cuda target, not {task.target}")
    arch = str(tasks[0].target.get("arch", "sm_90"))
    if any(str(t.target.get("arch", "sm_90")) != arch for t in tasks):
        raise ValueError("all tasks of a bundle must target the same architecture")
    manifest_path = out / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else None
    if old is not None and (old.get("format") != FORMAT or old.get("arch") != arch):
        raise ValueError(f"{out} holds a bundle for {old.get('arch')} ({old.get('format')}); use another folder")
    import tvm

    manifest: dict[str, Any] = {"format": FORMAT, "arch": arch, "nvcc": nvcc_version(), "tvm": tvm.__version__,
                                "created": (old or {}).get("created")
                                or _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                                "chunk": CHUNK, "layers": dict((old or {}).get("layers", {}))}
    jobs = []
    for task in tasks:
        sp = task.space
        valid = [i for i in range(sp.size) if sp.is_valid(sp.config(i))][:limit]
        fp = sp.fingerprint()
        prev = manifest["layers"].get(task.name)
        if prev is not None and (prev["space_fingerprint"] != fp or prev["template"] != task.template):
            raise ValueError(f"{out} holds {task.name} for another space or template; use another folder")
        chunks = [f"{task.name}-{k:04d}" for k in range((len(valid) + CHUNK - 1) // CHUNK)]
        manifest["layers"][task.name] = {
            "workload": task.workload.key, "template": task.template, "target": task.target,
            "space_fingerprint": fp, "space_size": sp.size, "n_configs": len(valid), "flops": task.flops,
            "shapes": conv_shapes(task), "chunks": chunks}
        for k, stem in enumerate(chunks):
            if not (out / f"{stem}.json").exists():
                jobs.append((task.name, task.workload.key, task.template, task.target_json, valid[k * CHUNK:(k + 1) * CHUNK], arch,
                             str(out), stem))
    _write_json(manifest_path, manifest)
    total, done = len(jobs), 0
    if progress:
        progress(0, total)
    if jobs:
        import multiprocessing as mp

        with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=mp.get_context("spawn")) as pool:
            for _ in pool.map(_build_chunk_job, jobs):
                done += 1
                if progress:
                    progress(done, total)
    return manifest


def _write_json(path: Path, doc: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)


def load_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    p = Path(folder) / "manifest.json"
    if not p.exists():
        raise ValueError(f"{folder}: no manifest.json (not a CUDA bundle)")
    doc = json.loads(p.read_text())
    if doc.get("format") != FORMAT:
        raise ValueError(f"{p}: not a {FORMAT} manifest")
    return doc
