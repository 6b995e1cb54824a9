"""Sum a tune run's per-task profile (calls x time): tuned, alone now, in the model; all tasks, the Winograd tasks,
the dense layers. Usage: python sums.py RUN [RUN ...] (reads RUN.txt, the tune run's console output)."""
import sys

for r in sys.argv[1:]:
    lines = open(r + ".txt").read().splitlines()
    i = [k for k, line in enumerate(lines) if "per task inside the built model" in line][0]
    sums = {g: {"tuned": 0.0, "alone": 0.0, "model": 0.0} for g in ("all", "winograd", "dense")}
    for line in lines[i:]:
        c = [x.strip() for x in line.split("│")]
        if len(c) < 9 or not c[3].isdigit():
            continue
        try:
            t, a, m = float(c[4]), float(c[5]), float(c[6])
        except ValueError:
            continue
        n = int(c[3])
        for g in ("all", "winograd" if "winograd" in c[1] else None, "dense" if "matmul" in c[1] else None):
            if g:
                for k, v in (("tuned", t), ("alone", a), ("model", m)):
                    sums[g][k] += n * v
    print(f"{r:22s} " + "  ".join(f"{g} " + "/".join(f"{d[k] / 1000:.2f}" for k in ("tuned", "alone", "model"))
                                   for g, d in sums.items()) + "  (ms: tuned/alone now/in model)")
