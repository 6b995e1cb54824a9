import json, glob, os, numpy as np, onnxruntime as ort
from collections import defaultdict
from tensortune.models.importer import load_model
from tensortune.models.peers import _onnx_bytes
m = load_model("resnet18"); x = m.example_input(0)
onnx = _onnx_bytes(m, x)
so = ort.SessionOptions(); so.intra_op_num_threads = 2; so.inter_op_num_threads = 1
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
so.optimized_model_filepath = "/tmp/r18-ort-opt.onnx"
sess = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
for _ in range(50): sess.run(None, {"input": x})
so.enable_profiling = True; so.profile_file_prefix = "/tmp/ortprof"
sess = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
for _ in range(20): sess.run(None, {"input": x})
import time
t=time.perf_counter(); 
for _ in range(100): sess.run(None, {"input": x})
print("mean ms (profiling on)", (time.perf_counter()-t)*10)
f = sess.end_profiling()
ev = json.load(open(f))
per = defaultdict(list)
for e in ev:
    if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
        per[(e["name"], e["args"].get("op_name"))].append(e["dur"])
rows = sorted(((np.median(v[-100:]), k) for k, v in per.items()), reverse=True)
tot = sum(r[0] for r in rows)
for d, (n, op) in rows: print(f"{d:8.1f} us  {op:22s} {n}")
print("sum of node medians", tot/1000, "ms")
