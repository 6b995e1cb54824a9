"""Per-node times of ONNX Runtime on ResNet-18 (its own profiler), in a fresh process, 2 intra-op threads,
all graph optimisations: which convs does ONNX Runtime run faster than our in-model kernels?"""
import json, sys, collections
import numpy as np
import onnxruntime as ort
from tensortune.models.importer import load_model
from tensortune.models.peers import _onnx_bytes

m = load_model(sys.argv[1])
x = m.example_input()
onnx = _onnx_bytes(m, x)
so = ort.SessionOptions(); so.intra_op_num_threads = 2; so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
so.enable_profiling = True
so.profile_file_prefix = "/work/runs/s38/ortprof"
s = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
feed = {s.get_inputs()[0].name: x}
for _ in range(30):
    s.run(None, feed)
path = s.end_profiling()
ev = json.load(open(path))
by = collections.defaultdict(list)
order = []
runs = []
for e in ev:
    if e.get("cat") == "Session" and e.get("name") == "model_run":
        runs.append(e["dur"])
    if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
        continue
    n = e["name"][:-len("_kernel_time")]
    if n not in by:
        order.append((n, e["args"].get("op_name"), e["args"].get("output_type_shape")))
    by[n].append(e["dur"])
tot = 0
for n, op, shp in order:
    med = float(np.median(by[n][5:]))
    tot += med
    print(f"{op:14s} {med:8.1f} us  {n[:60]:60s} {json.dumps(shp)[:80]}")
print(f"sum of node medians {tot/1e3:.2f} ms; model_run median {np.median(runs[5:])/1e3:.2f} ms")
