"""Bytecode VM against exec_mode='compiled' on a stored tuned ResNet-18, interleaved with ONNX Runtime."""
import sys, numpy as np
from unittest import mock
from tvm import relax
from tensortune.cli.common import parse_target_arg
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.models.flow import stored_result
from tensortune.models import build as B
from tensortune.models.peers import time_interleaved, prepare_peer
def main():
    db = sys.argv[1]
    target = parse_target_arg("llvm")
    model = apply_layout(load_model("resnet18"), "auto", target)
    st = SQLiteStorage(db, readonly=True)
    res = stored_result(model, target, st)
    x = model.example_input(0)
    ref = model.torch_output(x)
    orig = relax.build
    builds = {}
    for mode in ("bytecode", "compiled"):
        with mock.patch.object(relax, "build", lambda *a, **k: orig(*a, **{**k, "exec_mode": mode})):
            builds[mode] = B.build_model(model, target, B.to_database(res.schedules(), target), log_path="/tmp/tvm-exec.log")
        print(mode, "max err", np.max(np.abs(builds[mode].run(x) - ref)))
    cons = [b.contender(m, x) for m, b in builds.items()]
    ort = prepare_peer("onnxruntime", load_model("resnet18"), x, ref, 2); print(ort.skipped)
    print("ort err", ort.max_abs_error)
    cons.append(ort.contender)
    for rnd in range(2):
        t = time_interleaved(cons, repeat=10, min_repeat_ms=200)
        print({k: round(v.median_ms, 3) for k, v in t.items()})
    ort.contender.close()

if __name__ == "__main__":
    main()
