import sqlite3, json, re, sys
# per Winograd task of a run: the best config's order knob, its tuned time and the profile's alone/in-model time
for arg in sys.argv[1:]:
    run, _, txtfile = arg.partition(":")  # RUN (RUN.db and RUN.txt) or RUN:PROFILE.txt
    c = sqlite3.connect(f"file:{run}.db?mode=ro", uri=True)
    txt = open(txtfile or f"{run}.txt").read().splitlines()
    prof = {}
    for line in txt:
        cells = [x.strip() for x in line.split("│")]
        if len(cells) > 8 and cells[1].startswith("fused_conv2d_winograd") and "…" in cells[1]:
            prof.setdefault(cells[1].rstrip("…"), []).append((cells[4], cells[5], cells[6]))
    rows = c.execute("select task_name, config, cost from records where task_name like 'fused_conv2d_winograd%' "
                     "and cost > 0 and kind in ('trial','remeasure')").fetchall()
    best = {}
    for name, cfg, cost in rows:
        if name not in best or cost < best[name][1]:
            best[name] = (json.loads(cfg), cost)
    for name, (cfg, cost) in sorted(best.items()):
        print(run, name[:40], cfg["order"], cfg["tile_p"], cfg["tile_k"], cfg["tile_rc"], cfg["auto_unroll_max_step"], round(cost * 1e6, 1))
    print(run, "profile (tuned, in-model, alone) by name prefix:", {k[:34]: v for k, v in prof.items()})
