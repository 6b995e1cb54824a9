"""Stop 92: medians of the replay runs in this folder (measurements to 95% of the table's optimum; a run that never
reached counts as above every one that did). Output: summary.txt"""
import json
from pathlib import Path

def med(v):
    k = sorted(v, key=lambda r: (r is None, r or 0))
    m = k[(len(k) - 1) // 2] if len(k) % 2 else None if None in k[len(k) // 2 - 1: len(k) // 2 + 1] else (k[len(k) // 2 - 1] + k[len(k) // 2]) / 2
    return m if m is not None else "never"

def cells(f):
    out = {}
    for key, r in json.loads(Path(f).read_text()).items():
        cell, seed = key.rsplit("/", 1)
        out.setdefault(cell, {})[int(seed)] = r["reach"]
    return out

rows = [("autotvm", "none.json", "off.json", "on.json"), ("chameleon", "cham-none.json", "cham-off.json", "cham-on.json"),
        ("autotvm (variant for any source)", None, "any-source-off.json", "any-source-on.json")]
for recipe, *files in rows:
    got = [cells(f) if f and Path(f).exists() else {} for f in files]
    for cell in sorted(set(got[1]) | set(got[2])):
        seeds = sorted(set(got[1].get(cell, {})) & set(got[2].get(cell, {})))
        parts = []
        for name, g in zip(("without transfer", "with, no variant", "with the variant"), got):
            v = [g.get(cell, {}).get(s, "-") for s in seeds]
            if "-" in v:
                continue
            parts.append(f"{name} {med(v)} ({sum(x is not None for x in v)}/{len(v)} reach; {v})")
        print(f"{recipe:34s} {cell:28s} seeds {seeds[0]}-{seeds[-1]}: " + "; ".join(parts))
