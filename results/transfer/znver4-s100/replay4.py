"""Stop 100: stop 99's replay of the shipped against the model-ranked first design (znver5-s99/ranked.py) on this
CPU's four Zen 4 tables, now that L2 and L7 exist: cells not seen when ranked.py was written (and L1, L8 with two
more table sources). Usage: RANKED=0|1 python replay4.py SEEDS OUT.json"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "znver5-s99"))
sys.path.insert(0, str(HERE.parent / "znver5-s94"))
import ranked  # noqa: E402,F401  (wraps initial_configs when RANKED=1)
import replaycells  # noqa: E402

replaycells.LAYERS.clear()  # stop 94's script knew only Zen 4's L1 and L8 tables
os.environ.setdefault("CELLS", "znver4/L1,znver4/L2,znver4/L7,znver4/L8")
replaycells.run_cells("ranked" if os.environ.get("RANKED") == "1" else "shipped",
                      [int(s) for s in sys.argv[1].split(",")], Path(sys.argv[2]), lambda: {})
