import json, sys, os
print("| model, budget, mode | tuning | tensortune | ONNX Runtime (same run) | ratio | PyTorch eager | kernels | sgemm | corpus records |")
print("|---|---|---|---|---|---|---|---|---|")
for m in ("resnet18", "vgg16"):
    for n in (200, 500, 1000):
        for mode in ("with", "without"):
            p = f"{m}-{n}-{mode}.json"
            if not os.path.exists(p):
                continue
            d = json.load(open(p))
            L = d["latency_ms"]
            k = sum(t["calls"] * t["best_s"] for t in d["tasks"] if t["best_s"]) * 1e3
            t = L["tensortune"]; o = L.get("ONNX Runtime")
            txt = open(f"{m}-{n}-{mode}.txt").read()
            import re
            cr = re.search(r"up to (\d+) of the pretrained", txt)
            print(f"| {m} {n} {mode} | {d['tuning_wall_s']:.0f} s | {t:.2f} ms | {o:.2f} ms | {t/o:.2f} | {L.get('PyTorch eager', float('nan')):.2f} ms | {k:.2f} ms | {d['sgemm_gflops']:.0f} | {cr.group(1) if cr else '-'} |")
