import json, sys, collections, numpy as np
for f in sys.argv[1:]:
    d = collections.defaultdict(list)
    for name, L, s, n in json.load(open(f)):
        d[(name, L)].append(n if n is not None else 999)
    print(f, '  '.join(f"{k[0][:5]} {k[1]} {np.median(v):g}" + (f"({sum(x==999 for x in v)}x)" if 999 in v else '') for k, v in d.items()))
