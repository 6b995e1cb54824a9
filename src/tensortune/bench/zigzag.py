"""``tensortune bench zigzag``: a cross-check of the VTA model's cycle counts against ZigZag (zigzag-dse).

ZigZag is not a dependency (it pins its own stack); install it into the environment that runs this
(``pip install zigzag-dse six``), or the command says so and stops. For a few ResNet-18 conv layers on
the default design (1x16x16 GEMM, 32 KiB input, 256 KiB weight, 128 KiB accumulator SRAM, 64-bit DRAM
bus; ``data/zigzag_vta_like.yaml``), it compares the best schedule of our model (exhaustive over the
software knobs) with ZigZag's latency for its own best temporal mapping (LOMA) on the same array and
memories. Both are "best cycles for this layer on this design"; ZigZag has no VTA instruction overheads
or micro-op limits, so it is expected to be somewhat lower. Writes ``report.md`` and ``results.json``.
"""

from __future__ import annotations

import itertools
import json
import logging
import tempfile
from pathlib import Path

import numpy as np

from tensortune.accel.vta import ConvShape, VtaHardware, evaluate
from tensortune.bench.report import table
from tensortune.bench.results import BenchInputError
from tensortune.core.stats import median

DATA = Path(__file__).resolve().parent / "data"
LAYERS = (2, 5, 6, 8, 9, 11)  # ResNet-18 conv layers (1-based) with a 3x3 kernel


def ours(layer: ConvShape) -> float:
    """Fewest cycles of any software schedule of ``layer`` on the default design."""
    hw = VtaHardware()

    def div(n: int) -> list[int]:
        return [d for d in range(1, n + 1) if n % d == 0]

    grid = np.array(list(itertools.product([1], div(layer.OH), div(layer.OW), div(-(-layer.C // 16)),
                                           div(-(-layer.K // 16)), [1, 2], [1, 2])))
    p = {**hw.knob_values(), **{k: grid[:, j] for j, k in enumerate(
        ("tile_b", "tile_h", "tile_w", "tile_ci", "tile_co", "h_nthread", "oc_nthread"))}}
    return float(evaluate(layer, p)["cycles"].min())


def zigzag(layer: ConvShape) -> float:
    """ZigZag's latency (cycles) of its best temporal mapping of ``layer`` on the same design."""
    import yaml
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
        _, latency, _ = get_hardware_performance_zigzag(
            str(path), str(DATA / "zigzag_vta_like.yaml"), str(DATA / "zigzag_mapping.yaml"), opt="latency",
            dump_folder=d, loma_show_progress_bar=False)
    return float(latency)


def run_zigzag(out: Path, command: str = "", layers: tuple[int, ...] = LAYERS) -> Path:
    try:
        import zigzag.api  # noqa: F401
    except ImportError:
        raise BenchInputError("ZigZag is not installed here; `pip install zigzag-dse six` (it pins its own stack, "
                         "so a separate virtual environment is best) and run this again") from None
    from tensortune.workloads.layer_tables import MODELS

    out.mkdir(parents=True, exist_ok=True)
    rows, items = [], []
    for i in layers:
        wl = MODELS["resnet18"][i - 1]
        layer = ConvShape.of(wl)
        a, b = ours(layer), zigzag(layer)
        items.append({"layer": i, "shape": wl.describe(), "ideal": layer.ops / 2 / 256, "ours": a, "zigzag": b})
        rows.append([str(i), wl.describe(), f"{layer.ops / 2 / 256:,.0f}", f"{a:,.0f}", f"{b:,.0f}", f"{a / b:.3f}"])
    ratios = [x["ours"] / x["zigzag"] for x in items]
    (out / "results.json").write_text(json.dumps({"command": command, "layers": items}, indent=1))
    lines = ["# VTA model vs ZigZag: best cycles per layer on the default design", "", "Produced by:", "", "```",
             command or "(command not recorded)", "```", "",
             table(["ResNet-18 layer", "shape", "ideal cycles (MACs/256)", "ours, best schedule", "ZigZag, best mapping",
                    "ours / ZigZag"], rows), "",
             f"median ours/ZigZag = {median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
