"""Compare the GPU runner's records of the fault bundle (tests/gpu/fault_bundle.py) with what each
kernel must produce; prints one line per kernel and exits 1 on a mismatch.

    python results/gpu/h200-s88/check_faults.py FAULTS_RESULTS_DIR
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "gpu"))
from fault_bundle import EXPECTED  # noqa: E402

from tensortune.core.values import ErrorKind  # noqa: E402

recs = {}
for line in (Path(sys.argv[1]) / "faults.jsonl").read_text().splitlines():
    r = json.loads(line)
    recs[r["index"]] = r
bad = 0
for i, want in EXPECTED.items():
    r = recs.get(i)
    got = None if r is None else r["error"]
    ok = got == want
    bad += not ok
    what = f"cost {r['cost'] * 1e6:.1f} us ({r['timing']})" if r and got == 0 else (r or {}).get("message", "")[:110]
    print(f"{'ok ' if ok else 'BAD'} {i}: want {ErrorKind(want).name}, got {ErrorKind(got).name if got is not None else None}: {what}")
extra = set(recs) - set(EXPECTED)
if extra:
    print(f"BAD: records for configs never sent: {sorted(extra)}")
    bad += 1
sys.exit(1 if bad else 0)
