"""Winograd convolution F(m x m, 3 x 3) on the blocked layout (NCHW[x]c data, OIHW[x]i[x]o weight).

A 3x3 stride-1 convolution computes each ``m x m`` output tile from an ``(m+2) x (m+2)`` input tile with
``(m+2)^2`` multiplications per (input, output) channel pair instead of ``9 m^2``: the input tiles and
the weights are transformed (``V = B^T d B``, ``U = G g G^T``), multiplied element-wise and summed over
the input channels (a batched matrix product, one per tile position), and transformed back
(``Y = A^T M A``). F(2, 3) does 2.25x fewer multiplications, F(4, 3) 4x; the transforms cost additions
and memory, and the transformed weights are ``(m+2)^2 / 9`` times larger (1.8x, 4x).

The weight transform runs once, at build time: the weights are constants, and ``FoldConstant`` folds
:func:`weight_transform` as it folds the layout transform of a direct conv. The model's conv then lowers
to :func:`winograd_conv`, whose stages are named for the template that schedules them (``data_pad``,
``data_pack``, ``bgemm``, ``inverse``); the epilogue (batch norm, residual, ReLU) fuses after ``inverse``.

Layouts: ``U[alpha, alpha, K/x, C, x]``, ``V[alpha, alpha, P, C]`` (P = tiles of the output),
``M[alpha, alpha, K/x, P, x]``: the product's inner loop broadcasts one ``V`` value and multiplies a
vector of ``x`` output channels of ``U``, the register block of the direct template.
"""

from __future__ import annotations

from typing import Any

TILE_SIZES = (2, 4)


def transform_matrices(m: int) -> tuple[Any, Any, Any]:
    """Cook-Toom's ``A`` (alpha x m), ``B`` (alpha x alpha) and ``G`` (alpha x 3) for F(m, 3), as NumPy
    arrays (TVM's choice of interpolation points, which keeps F(4, 3)'s fp32 error near 1e-5)."""
    import numpy as np
    from tvm.topi.nn.winograd_util import _cook_toom_convolution, _interpolation_points

    a, b, g = _cook_toom_convolution(_interpolation_points(m + 1), m, 3)
    return np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(g, np.float64)


def _sparse_sum(col: Any, coeffs: Any, term: Any) -> Any:
    """``sum_j coeffs[j, col] * term(j)`` for a loop variable ``col``, written with only the non-zero
    coefficients of each column (a select over ``col``: once ``col`` is unrolled the select folds and
    no multiplication by 0 or 1 is left, which fp32 code generation would not remove by itself)."""
    import tvm

    expr = None
    for k in range(coeffs.shape[1] - 1, -1, -1):
        acc = None
        for j in range(coeffs.shape[0]):
            cf = float(coeffs[j, k])
            if cf == 0.0:
                continue
            t = term(j)
            t = t if cf == 1.0 else -t if cf == -1.0 else t * tvm.tirx.const(cf, "float32")
            acc = t if acc is None else acc + t
        acc = acc if acc is not None else tvm.tirx.const(0.0, "float32")
        expr = acc if expr is None else tvm.tirx.Select(col == k, acc, expr)
    return expr


def weight_transform(kernel: Any, m: int) -> Any:
    """``U[alpha, alpha, K/x, C, x]`` from a blocked ``OIHW[x]i[x]o`` weight (folded at build time)."""
    from tvm import te

    ob, ib, r, s, bi, bo = (int(d) for d in kernel.shape)
    if (r, s) != (3, 3):
        raise ValueError(f"winograd needs a 3x3 kernel, got {r}x{s}")
    alpha = m + 2
    _, _, g = transform_matrices(m)
    gt = g.T  # [3, alpha]: column e holds G[e, :]
    return te.compute(
        (alpha, alpha, ob, ib * bi, bo),
        lambda e, u, ko, c, ki: _sparse_sum(e, gt, lambda i: _sparse_sum(
            u, gt, lambda j: kernel[ko, c // bi, i, j, c % bi, ki])),
        name="winograd_weight")


def out_tiles(height: int, width: int, m: int) -> tuple[int, int]:
    return -(-height // m), -(-width // m)


def winograd_conv(data: Any, u: Any, m: int, padding: tuple[int, int], dtype: str = "float32") -> Any:
    """A 3x3 stride-1 conv of blocked ``data`` ``[N, C/b, H, W, b]`` with transformed weights ``u``
    (:func:`weight_transform`), output ``[N, K/x, OH, OW, x]``. Batch 1 only (the tiles index one image).

    Stages: ``data_pad``; ``data_pack_row`` and ``data_pack`` (``V = B^T d B`` in two sparse passes);
    ``bgemm``; ``inverse_row`` and ``inverse`` (``Y = A^T M A``)."""
    import tvm
    from tvm import te

    n, cb, h, w, b = (int(d) for d in data.shape)
    alpha, _, kb, c, x = (int(d) for d in u.shape)
    if n != 1:
        raise ValueError("winograd_conv covers batch 1")
    if alpha != m + 2 or c != cb * b:
        raise ValueError("weight transform does not match the data or the tile size")
    ph, pw = padding
    oh, ow = h + 2 * ph - 2, w + 2 * pw - 2
    th, tw = out_tiles(oh, ow, m)
    p_n = th * tw
    a_mat, b_mat, _ = transform_matrices(m)
    hp, wp = th * m + 2, tw * m + 2
    zero = tvm.tirx.const(0.0, dtype)
    pad = te.compute(
        (n, cb, hp, wp, b),
        lambda i, cc, y, z, v: tvm.tirx.if_then_else(
            tvm.tirx.all(y >= ph, y < h + ph, z >= pw, z < w + pw), data[i, cc, y - ph, z - pw, v], zero),
        name="data_pad")
    # rows first: R[e, col, p, c] = sum_a B[a, e] d[a, col]; then V[e, nu] = sum_col R[e, col] B[col, nu]
    row = te.compute(
        (alpha, alpha, p_n, c),
        lambda e, col, p, cc: _sparse_sum(
            e, b_mat, lambda a: pad[0, cc // b, (p // tw) * m + a, (p % tw) * m + col, cc % b]),
        name="data_pack_row")
    v_t = te.compute(
        (alpha, alpha, p_n, c),
        lambda e, nu, p, cc: _sparse_sum(nu, b_mat, lambda col: row[e, col, p, cc]),
        name="data_pack")
    rc = te.reduce_axis((0, c), "rc")
    m_t = te.compute(
        (alpha, alpha, kb, p_n, x),
        lambda e, nu, ko, p, ki: te.sum(v_t[e, nu, p, rc] * u[e, nu, ko, rc, ki], axis=[rc]),
        name="bgemm")
    # S[a, ko, ty, z] = sum_nu M[a, nu, ko, (ty, z // m)] A[nu, z % m]; Y[y, z] = sum_a A[a, y % m] S[a, y // m, z]
    inv_row = te.compute(
        (alpha, kb, th, ow, x),
        lambda a, ko, ty, z, ki: _sparse_sum(z % m, a_mat, lambda nu: m_t[a, nu, ko, ty * tw + z // m, ki]),
        name="inverse_row")
    return te.compute(
        (n, kb, oh, ow, x),
        lambda i, ko, y, z, ki: _sparse_sum(y % m, a_mat, lambda a: inv_row[a, ko, y // m, z, ki]),
        name="inverse")


WINOGRAD_CHOICES = ("auto", "off")


def tile_size(out_h: int, out_w: int) -> int:
    """F(4, 3) where the output has room for many 4x4 tiles, F(2, 3) on small outputs: on a 14x14 output
    4x4 tiles waste 18% of the product on padding and the 4x larger weights (36/9) stream from memory
    inside a model (stop 47, znver5, cold, untuned schedule: 256 channels at 14x14 288 us with F(2, 3)
    against 348 with F(4, 3); 128 channels at 28x28 194 against 262)."""
    return 4 if min(out_h, out_w) >= 24 else 2


def qualifies(call: Any) -> bool:
    """A blocked conv2d this module lowers: 3x3, stride 1, dilation 1, one group, batch 1, with its input
    and output channels blocked alike (NCHW[x]c in and out, OIHW[x]i[x]o weight)."""
    a = call.attrs
    if getattr(call.op, "name", "") != "relax.nn.conv2d" or len(str(a.data_layout)) == 4:
        return False
    dshape = getattr(call.args[0].ty, "shape", None)
    wshape = getattr(call.args[1].ty, "shape", None)
    if dshape is None or wshape is None or len(dshape) != 5 or len(wshape) != 6:
        return False
    try:
        n = int(dshape[0])
        r, s, bi = int(wshape[2]), int(wshape[3]), int(wshape[4])
        b = int(dshape[4])
    except TypeError:
        return False  # a symbolic dimension
    return (n == 1 and (r, s) == (3, 3) and bi == b and int(a.groups) == 1
            and [int(x) for x in a.strides] == [1, 1] and [int(x) for x in a.dilation] == [1, 1]
            and str(a.out_layout) == str(a.data_layout))


def to_winograd(mod: Any) -> Any:
    """The Relax module with every qualifying blocked conv2d (:func:`qualifies`) as a weight transform
    (folded once the weights are bound) and a :func:`winograd_conv` call, its tile size by
    :func:`tile_size`. Other convolutions stay as they are."""
    from tvm import relax

    @relax.expr_functor.mutator
    class Rewrite(relax.PyExprMutator):
        def visit_call_(self, call: Any) -> Any:  # noqa: N802 (TVM's visitor name)
            call = super().visit_call_(call)
            if not qualifies(call):
                return call
            a = call.attrs
            pad = [int(x) for x in a.padding]
            if pad[0] != pad[2] or pad[1] != pad[3]:
                return call
            oshape = [int(x) for x in call.ty.shape]
            m = tile_size(oshape[2], oshape[3])
            u = self.builder_.emit(self.builder_.call_te(weight_transform, call.args[1], m,
                                                         primfunc_name_hint="winograd_weight"))
            return self.builder_.call_te(winograd_conv, call.args[0], u, m, (pad[0], pad[1]),
                                         primfunc_name_hint="conv2d_winograd")

    rw = Rewrite(mod)
    for gv, f in mod.functions_items():
        if isinstance(f, relax.Function):
            rw.builder_.update_func(gv, rw.visit_expr(f))
    return relax.transform.DeadCodeElimination()(rw.builder_.get())
