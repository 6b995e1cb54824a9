"""Optional cross-check of the VTA model's cycle counts against ZigZag (zigzag-dse), where installable.

ZigZag is not a dependency (it pins its own stack); run this in a separate environment:

    python3 -m venv /tmp/zz && /tmp/zz/bin/pip install zigzag-dse six pyyaml
    /tmp/zz/bin/python bench/zigzag/crosscheck.py

For a few ResNet-18 conv layers on the default design (1x16x16 GEMM, 32 KiB input, 256 KiB weight,
128 KiB accumulator SRAM, 64-bit DRAM bus; ``vta_like.yaml``), it compares the best schedule of our model
(exhaustive over the software knobs) with ZigZag's latency for its own best temporal mapping (LOMA) on
the same array and memories. Both are "best cycles for this layer on this design"; ZigZag has no VTA
instruction overheads or micro-op limits, so it is expected to be somewhat lower.
"""

from __future__ import annotations

import itertools
import logging
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from tensortune.accel.vta import ConvShape, VtaHardware, evaluate  # noqa: E402
from tensortune.workloads.layer_tables import MODELS  # noqa: E402


def ours(layer: ConvShape) -> float:
    hw = VtaHardware()
    div = lambda n: [d for d in range(1, n + 1) if n % d == 0]  # noqa: E731
    grid = np.array(list(itertools.product([1], div(layer.OH), div(layer.OW), div(-(-layer.C // 16)),
                                           div(-(-layer.K // 16)), [1, 2], [1, 2])))
    p = {**hw.knob_values(), **{k: grid[:, j] for j, k in enumerate(
        ("tile_b", "tile_h", "tile_w", "tile_ci", "tile_co", "h_nthread", "oc_nthread"))}}
    return float(evaluate(layer, p)["cycles"].min())


def zigzag(layer: ConvShape) -> float:
    from zigzag.api import get_hardware_performance_zigzag

    logging.disable(logging.CRITICAL)
    ih = (layer.OH - 1) * layer.stride + layer.R
    wl = [{"id": 0, "operator_type": "Conv", "equation": "O[b][k][oy][ox]+=W[k][c][fy][fx]*I[b][c][iy][ix]",
           "dimension_relations": [f"ix={layer.stride}*ox+1*fx", f"iy={layer.stride}*oy+1*fy"],
           "loop_dims": ["B", "K", "C", "OY", "OX", "FY", "FX"],
           "loop_sizes": [layer.N, layer.K, layer.C, layer.OH, layer.OW, layer.R, layer.S],
           "operand_precision": {"O": 32, "O_final": 8, "W": 8, "I": 8}, "operand_source": {"I": 0},
           "pr_loop_dims": ["IY", "IX"], "pr_loop_sizes": [ih, ih],
           "padding": [[layer.pad, layer.pad], [layer.pad, layer.pad]]}]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "wl.yaml"
        path.write_text(yaml.safe_dump(wl))
        _, latency, _ = get_hardware_performance_zigzag(str(path), str(HERE / "vta_like.yaml"), str(HERE / "mapping.yaml"),
                                                        opt="latency", dump_folder=d, loma_show_progress_bar=False)
    return float(latency)


def main() -> int:
    rows = []
    print("| ResNet-18 layer | shape | ideal cycles (MACs/256) | ours, best schedule | ZigZag, best mapping | ours / ZigZag |")
    print("|---|---|---|---|---|---|")
    for i in (2, 5, 6, 8, 9, 11):
        wl = MODELS["resnet18"][i - 1]
        layer = ConvShape.of(wl)
        ideal = layer.ops / 2 / 256
        a, b = ours(layer), zigzag(layer)
        rows.append(a / b)
        print(f"| {i} | {wl.describe()} | {ideal:,.0f} | {a:,.0f} | {b:,.0f} | {a / b:.3f} |", flush=True)
    print(f"\nmedian ours/ZigZag = {float(np.median(rows)):.3f}, range {min(rows):.3f}-{max(rows):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
