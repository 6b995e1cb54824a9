import json, collections
import numpy as np
from tensortune.bench.groundtruth import groundtruth_task
from tensortune.bench.transfer import combine_passes
d = json.load(open("/work/main/results/transfer/znver5-s96/l46-live-10/results.json"))
sp = groundtruth_task("L4").space
def reg(i):
    x = sp.values(sp.config(int(i))); return (x['tile_f'][2]*x['tile_f'][3], x['tile_y'][-1], x['tile_x'][-1])
conf = combine_passes([p["medians"] for p in d["confirmed_passes"]["L4"]])
opt = max(conf.values())
print('13638 in confirmed:', '13638' in conf)
fams = collections.defaultdict(list)
for k, val in conf.items(): fams[reg(k)].append(val/opt)
for f, l in sorted(fams.items(), key=lambda t: -max(t[1])): print(f, len(l), round(max(l),3), round(float(np.median(l)),3))
for r in d['runs']:
    if r['layer'] != 'L4' or r['recipe'] != 'autotvm': continue
    cnt = collections.Counter(reg(c) for c in r['measured'])
    print(r['seed'], r['transfer'], [reg(c) for c in r['measured'][:8]], cnt.most_common(6), '32x1x8:', cnt.get((32,1,8),0), '32x1x4:', cnt.get((32,1,4),0))
