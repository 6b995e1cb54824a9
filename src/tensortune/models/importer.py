"""Bring a model into TVM Relax: a built-in PyTorch definition, the user's ``nn.Module`` from a
Python file (through ``torch.export``), or an ONNX file."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tensortune.models.zoo import BUILTIN, randomize_batchnorm

DEFAULT_INPUT_SHAPE = (1, 3, 224, 224)


class ModelError(ValueError):
    """The model cannot be loaded or imported (a message for the user, not a traceback)."""


@dataclass
class ImportedModel:
    """A Relax module with its weights detached (``params``), and what is needed to check and time it
    against its source: the PyTorch module (None for ONNX) and the input shape."""

    name: str
    source: str  # "builtin", "python" or "onnx"
    mod: Any  # tvm.IRModule, weights as parameters of "main" after the input(s)
    params: dict[str, Any]  # name -> tvm.runtime.Tensor
    input_shape: tuple[int, ...]
    input_dtype: str = "float32"
    torch_module: Any = None
    fingerprint: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def example_input(self, seed: int = 0) -> np.ndarray:
        return np.random.default_rng(seed).standard_normal(self.input_shape).astype(self.input_dtype)

    def torch_output(self, x: np.ndarray) -> np.ndarray | None:
        if self.torch_module is None:
            return None
        import torch

        from tensortune.core.threads import unpinned

        # PyTorch makes its thread pool on first use, with this thread's core affinity: not TVM's pinning
        with unpinned(), torch.no_grad():
            return self.torch_module(torch.from_numpy(x)).numpy()


def _parse_shape(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    try:
        shape = tuple(int(t) for t in text.replace("x", ",").split(",") if t.strip())
    except ValueError:
        raise ModelError(f"--input-shape wants integers such as 1,3,224,224, got {text!r}") from None
    if not shape or any(d <= 0 for d in shape):
        raise ModelError(f"--input-shape wants positive integers, got {text!r}")
    return shape


def _from_torch(module: Any, shape: tuple[int, ...], name: str, source: str) -> ImportedModel:
    import torch
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    module = module.eval()
    x = torch.randn(*shape)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            # torch.export's own pytree deprecation notice, printed on every export: not the user's concern
            warnings.filterwarnings("ignore", category=FutureWarning, module="copyreg")
            module(x)
            exported = torch.export.export(module, (x,))
    except Exception as e:
        raise ModelError(f"{name}: torch.export failed for input shape {shape}: {type(e).__name__}: {e}") from None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, module="copyreg")
        mod = from_exported_program(exported, keep_params_as_input=True)
    mod, params = relax.frontend.detach_params(mod)
    h = hashlib.sha256()
    for k, v in sorted(module.state_dict().items()):
        h.update(k.encode())
        h.update(v.detach().cpu().numpy().tobytes()[:4096])
    return ImportedModel(name, source, mod, _named(mod, params.get("main", [])),
                         shape, torch_module=module, fingerprint=h.hexdigest()[:16])


def import_torch(module: Any, shape: tuple[int, ...], name: str) -> ImportedModel:
    """A PyTorch module of this package (e.g. the corpus network) imported like a built-in model."""
    return _from_torch(module, shape, name, "builtin")


def _named(mod: Any, values: list[Any]) -> dict[str, Any]:
    """detach_params returns the weights positionally, after the inputs; name them by parameter."""
    fparams = list(mod["main"].params)
    names = [_var_name(p) for p in fparams[len(fparams) - len(values):]]
    return dict(zip(names, values, strict=True))


def _from_onnx(path: str, shape: tuple[int, ...] | None) -> ImportedModel:
    try:
        import onnx
    except ImportError:
        raise ModelError("ONNX import needs the onnx package (pip install onnx)") from None
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    try:
        model = onnx.load(path)
    except Exception as e:
        raise ModelError(f"{path}: not a readable ONNX file: {type(e).__name__}: {e}") from None
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    if len(inputs) != 1:
        raise ModelError(f"{path}: tensortune tunes models with one input; this one has {len(inputs)}")
    inp = inputs[0]
    dims = [d.dim_value if d.HasField("dim_value") else None for d in inp.type.tensor_type.shape.dim]
    if shape is None:
        if any(d is None or d <= 0 for d in dims):
            raise ModelError(f"{path}: input {inp.name!r} has a dynamic shape {dims}; give --input-shape")
        shape = tuple(int(d) for d in dims)
    elem = inp.type.tensor_type.elem_type
    if elem != onnx.TensorProto.FLOAT:
        raise ModelError(f"{path}: input {inp.name!r} is not float32 (ONNX type {elem})")
    try:
        mod = from_onnx(model, shape_dict={inp.name: list(shape)}, keep_params_in_input=True)
    except Exception as e:
        raise ModelError(f"{path}: TVM's ONNX importer failed: {type(e).__name__}: {str(e)[-400:]}") from None
    mod, params = relax.frontend.detach_params(mod)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    name = os.path.splitext(os.path.basename(path))[0]
    return ImportedModel(name, "onnx", mod, _named(mod, params.get("main", [])), shape, fingerprint=digest,
                         extra={"onnx_path": os.path.abspath(path)})


def _load_python(spec: str) -> Any:
    path, _, cls_name = spec.rpartition(":")
    if not os.path.isfile(path):
        raise ModelError(f"--model {spec!r}: no such file {path!r}")
    mod_name = "tensortune_user_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:8]
    loader = importlib.util.spec_from_file_location(mod_name, path)
    if loader is None or loader.loader is None:
        raise ModelError(f"--model {spec!r}: cannot import {path!r}")
    module = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(module)
    except Exception as e:
        raise ModelError(f"--model {spec!r}: importing {path} raised {type(e).__name__}: {e}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ModelError(f"--model {spec!r}: {path} defines no {cls_name!r}")
    try:
        return cls()
    except Exception as e:
        raise ModelError(f"--model {spec!r}: {cls_name}() raised {type(e).__name__}: {e} "
                         "(tensortune constructs the class with no arguments)") from None


def is_model_spec(spec: str) -> bool:
    """Whether ``--model`` names a whole model this module imports (not a layer-table name)."""
    return spec in BUILTIN or spec.endswith(".onnx") or (":" in spec and spec.split(":")[0].endswith(".py"))


def load_model(spec: str, input_shape: str | tuple[int, ...] | None = None, seed: int = 0) -> ImportedModel:
    """``alexnet``, ``vgg16``, ``resnet18``, ``path/file.py:ClassName`` or ``path/model.onnx``."""
    import torch

    shape = _parse_shape(input_shape) if isinstance(input_shape, str) or input_shape is None else tuple(input_shape)
    if spec in BUILTIN:
        torch.manual_seed(seed)
        module = BUILTIN[spec]()
        randomize_batchnorm(module, seed)
        return _from_torch(module, shape or DEFAULT_INPUT_SHAPE, spec, "builtin")
    if spec.endswith(".onnx"):
        if not os.path.isfile(spec):
            raise ModelError(f"--model {spec!r}: no such file")
        return _from_onnx(spec, shape)
    if ":" in spec and spec.split(":")[0].endswith(".py"):
        module = _load_python(spec)
        if not isinstance(module, torch.nn.Module):
            raise ModelError(f"--model {spec!r}: {type(module).__name__} is not a torch.nn.Module")
        shape = shape or tuple(getattr(module, "example_input_shape", DEFAULT_INPUT_SHAPE))
        return _from_torch(module, shape, spec.rpartition(":")[2], "python")
    raise ModelError(f"unknown model {spec!r}: give {', '.join(BUILTIN)}, a file.py:ClassName or a .onnx file")


def _var_name(v: Any) -> str:
    for attr in ("name_hint", "name"):
        n = getattr(v, attr, None)
        if isinstance(n, str):
            return n
    return str(v)
