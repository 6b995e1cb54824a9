import json,sys,statistics as st
d=json.load(open(sys.argv[1])); opt=max(d["confirmed"].values()); thr=0.95*opt
print("optimum",opt, "threshold",thr)
by={}
for r in d["runs"]:
    # reach: first measurement whose config's confirmed value (if any) or measured value >= thr
    reach=next((i+1 for i,(c,g) in enumerate(r["seq"]) if g>=thr),None)
    by.setdefault(r["variant"],[]).append((r["seed"],reach))
for v,l in by.items():
    vals=sorted(x if x else 10**6 for _,x in l)
    print(v, l, "median", st.median(vals))
print("confirmed-median rule (configs confirmed: each run's top 3 + 4905/4904)")
conf=d["confirmed"]
for v in by:
    l=[]
    for r in d["runs"]:
        if r["variant"]!=v: continue
        hit=next((i+1 for i,(c,g) in enumerate(r["seq"]) if conf.get(str(c),0)>=thr),None)
        l.append((r["seed"],hit))
    print(v,l,"median",st.median(sorted(x if x else 10**6 for _,x in l)))
print(sorted(((c,round(g,1)) for c,g in conf.items() if g>=thr), key=lambda x:-x[1]))
