"""Whole-model latency of several tensortune libraries (TVM runtime alone) and ONNX Runtime, with no process
kept between measurements: stop 56 found that with one long-lived server process per library (multi.py), the
libraries whose processes started first ran slow for the whole set (14.36 / 12.32 / 10.75 ms, re-timed at
10.28 / 10.08), and rotating the order within rounds did not remove it.

Here every measurement is a fresh process: it loads the library (or builds the ONNX Runtime session), makes
two calls and one discarded 200 ms repeat, then times REPEATS repeats of >= 200 ms each and returns their
median. Each round visits every library once in a new random order (seeded), with a 0.3 s pause before each.
Reported per library: the median over rounds, min, max, and the median of its per-round ratio to ONNX Runtime.
Each library's output is checked once (first round) against PyTorch on the weights of its seed.

Usage: python timing.py MODEL ROUNDS NAME=LIB.so[@SEED] [NAME=LIB.so[@SEED] ...]   (TVM_NUM_THREADS=2)"""
import multiprocessing as mp
import os
import sys
import time

import numpy as np

REPEATS = 3
THREADS = int(os.environ.get("TVM_NUM_THREADS", "2"))


def one_repeat_ms(fn, ms):
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        el = time.perf_counter() - t0
        if el * 1e3 >= ms:
            return el / n * 1e3


def measure(call):
    call()
    call()
    one_repeat_ms(call, 200)  # discarded
    return float(np.median([one_repeat_ms(call, 200) for _ in range(REPEATS)]))


def tvm_once(conn, lib, x):
    import tvm
    from tvm.runtime.vm import VirtualMachine
    vm = VirtualMachine(tvm.runtime.load_module(lib), tvm.cpu())
    t = tvm.runtime.tensor(x)
    f = vm["main"]
    y = f(t)
    y = (y if isinstance(y, tvm.runtime.Tensor) else y[0]).numpy()
    conn.send((measure(lambda: f(t)), y))


def ort_once(conn, onnx, x):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession(onnx, so, providers=["CPUExecutionProvider"])
    feed = {s.get_inputs()[0].name: x}
    y = s.run(None, feed)[0]
    conn.send((measure(lambda: s.run(None, feed)), y))


def once(ctx, target, arg, x):
    a, b = ctx.Pipe()
    p = ctx.Process(target=target, args=(b, arg, x))
    p.start()
    out = a.recv()
    p.join(30)
    if p.is_alive():
        p.kill()
        p.join()
    return out


def main():
    model_name, rounds = sys.argv[1], int(sys.argv[2])
    entries = {}
    for a in sys.argv[3:]:
        name, lib = a.split("=", 1)
        lib, _, seed = lib.partition("@")
        entries[name] = (tvm_once, os.path.abspath(lib), int(seed or 0))
    from tensortune.models.importer import load_model
    from tensortune.models.peers import _onnx_bytes
    m0 = load_model(model_name, seed=0)
    x = m0.example_input()
    entries["ONNX Runtime"] = (ort_once, _onnx_bytes(m0, x), 0)
    refs = {s: load_model(model_name, seed=s).torch_output(x) for s in {e[2] for e in entries.values()}}
    ctx = mp.get_context("spawn")
    rng = np.random.default_rng(12345)
    names = list(entries)
    res = {n: [] for n in names}
    t0 = time.time()
    for r in range(rounds):
        for i in rng.permutation(len(names)):
            n = names[i]
            target, arg, seed = entries[n]
            time.sleep(0.3)
            ms, y = once(ctx, target, arg, x)
            res[n].append(ms)
            if r == 0:
                print(f"{n:28s} max abs error against PyTorch (seed {seed}) %.1e" % float(np.max(np.abs(y - refs[seed]))),
                      flush=True)
        print(f"round {r + 1}/{rounds} done, {time.time() - t0:.0f} s", flush=True)
    ort = np.array(res["ONNX Runtime"])
    for n, v in res.items():
        ratio = np.median(np.array(v) / ort)
        print(f"{n:28s} median {np.median(v):8.2f} ms  min {min(v):8.2f}  max {max(v):8.2f}  "
              f"per-round ratio to ORT (median) {ratio:.3f}")


if __name__ == "__main__":
    main()
