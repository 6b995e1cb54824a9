"""Replay of the 22 held-out cells (the five CPUs' tables, L1, L2, L7, L8; Zen 4 L1, L8), autotvm with transfer as
shipped, knobs+corpus, TRIALS (300) measurements, with the shipped first design or the model-ranked one (ranked.py).
Usage: RANKED=0|1 python replay.py SEEDS OUT.json (env CELLS as in stop 94's replaycells.py)."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "znver5-s94"))
import ranked  # noqa: E402,F401  (wraps initial_configs when RANKED=1)
from replaycells import run_cells  # noqa: E402

ALL = ",".join([f"{c}/{l}" for c in ("znver5", "znver3", "rocketlake", "emeraldrapids", "znver4-no-avx512-no-gfni")
                for l in ("L1", "L2", "L7", "L8")] + ["znver4/L1", "znver4/L8"])
os.environ.setdefault("CELLS", ALL)
run_cells("ranked" if os.environ.get("RANKED") == "1" else "shipped", [int(s) for s in sys.argv[1].split(",")],
          Path(sys.argv[2]), lambda: {})
