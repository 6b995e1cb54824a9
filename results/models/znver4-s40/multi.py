"""Time several tensortune libraries (TVM runtime alone) and ONNX Runtime, each in a fresh process of its own,
interleaved (one repeat of >= 200 ms each per round, 0.3 s pause, order rotating), medians and each library's
median of per-round ratios to ONNX Runtime.
Usage: python multi.py MODEL ROUNDS NAME=LIB.so [NAME=LIB.so ...]"""
import multiprocessing as mp
import sys
import time

import numpy as np


def one_repeat_ms(fn, ms):
    n, t0 = 0, time.perf_counter()
    while True:
        fn(); n += 1
        el = time.perf_counter() - t0
        if el * 1e3 >= ms:
            return el / n * 1e3


def tvm_server(conn, lib, x, threads):
    import os
    os.environ["TVM_NUM_THREADS"] = str(threads)
    import tvm
    from tvm.runtime.vm import VirtualMachine
    vm = VirtualMachine(tvm.runtime.load_module(lib), tvm.cpu())
    t = tvm.runtime.tensor(x)
    f = vm["main"]
    def call():
        y = f(t)
        return y
    y = call(); call()
    y = (y if isinstance(y, tvm.runtime.Tensor) else y[0]).numpy()
    conn.send(y)
    while (m := conn.recv()) is not None:
        conn.send(one_repeat_ms(call, m))


def ort_server(conn, onnx, x, threads):
    import onnxruntime as ort
    so = ort.SessionOptions(); so.intra_op_num_threads = threads; so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
    feed = {s.get_inputs()[0].name: x}
    call = lambda: s.run(None, feed)[0]
    y = call(); call()
    conn.send(y)
    while (m := conn.recv()) is not None:
        conn.send(one_repeat_ms(call, m))


def main():
    model_name, rounds = sys.argv[1], int(sys.argv[2])
    libs = [a.split("=", 1) for a in sys.argv[3:]]
    from tensortune.models.peers import _onnx_bytes
    from tensortune.models.importer import load_model
    m = load_model(model_name)
    x = np.random.default_rng(0).standard_normal(m.input_shape).astype("float32") if not hasattr(m, "example_input") else m.example_input()
    ref = m.torch_output(x)
    onnx = _onnx_bytes(m, x)
    ctx = mp.get_context("spawn")
    procs = {}
    for name, target, arg in [*((n, tvm_server, l) for n, l in libs), ("ONNX Runtime", ort_server, onnx)]:
        a, b = ctx.Pipe()
        p = ctx.Process(target=target, args=(b, arg, x, 2), daemon=True); p.start()
        y = a.recv()
        print(f"{name:28s} max abs error %.1e" % float(np.max(np.abs(y - ref))), flush=True)
        procs[name] = (a, p)
    res = {n: [] for n in procs}
    names = list(procs)
    for r in range(rounds):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            time.sleep(0.3)
            procs[n][0].send(200)
            res[n].append(procs[n][0].recv())
    for n, (a, p) in procs.items():
        a.send(None); p.join(10)
    ort = np.array(res["ONNX Runtime"])
    for n, v in res.items():
        ratio = np.median(np.array(v) / ort)
        print(f"{n:28s} median {np.median(v):8.2f} ms  min {min(v):8.2f}  max {max(v):8.2f}  per-round ratio to ORT (median) {ratio:.3f}")


if __name__ == "__main__":
    main()
