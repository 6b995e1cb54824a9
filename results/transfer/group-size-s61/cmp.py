import json,sys,statistics as st
runs={f:json.load(open(f)) for f in sys.argv[1:]}
keys=sorted({(a,b) for f in runs for a,b,_,_ in runs[f]})
print('%-12s %-3s'%('set','L'), ' '.join('%22s'%f.split('/')[-1][:22] for f in runs))
tot={f:[] for f in runs}
for k in keys:
    row=[]
    for f,r in runs.items():
        v=[n if n is not None else 999 for a,b,s,n in r if (a,b)==k]
        tot[f]+=v
        row.append('%5s med %-5s'%(','.join('x' if x==999 else str(x) for x in v)[:14], st.median(v) if v else '-'))
    print('%-12s %-3s'%k, ' | '.join(row))
for f,v in tot.items(): print(f, 'n', len(v), 'mean log-ish', sum(min(x,240) for x in v)/max(len(v),1))
