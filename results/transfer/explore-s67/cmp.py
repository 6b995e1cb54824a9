import json, sys, collections, numpy as np
def load(fs):
    d = collections.defaultdict(dict)
    for f in fs:
        for name, L, s, n in json.load(open(f)):
            d[(name, L)][s] = n if n is not None else 999
    return d
a = load(sys.argv[1].split(',')); b = load(sys.argv[2].split(','))
for k in b:
    sa = [a[k].get(s) for s in sorted(b[k])]; sb = [b[k][s] for s in sorted(b[k])]
    f = lambda v: ','.join('x' if x == 999 else str(x) for x in v)
    flag = '' if sa == sb else ' *'
    print(f"{k[0][:6]:7s} {k[1]} A {np.median([x for x in sa if x is not None]):6g} [{f(sa)}]  B {np.median(sb):6g} [{f(sb)}]{flag}")
