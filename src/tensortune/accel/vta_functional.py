"""Functional execution of the VTA conv2d schedule on int8 data, in NumPy.

It runs what the analytical model (``vta.py``) only counts: data and weights are packed into VTA's
blocked layouts, every tile is loaded (with its halo, zero padding at the image border) into fixed-size
SRAM arrays at per-virtual-thread offsets, the GEMM runs the micro-op kernel with VTA's two hardware
loops (index = uop index + loop * factor), the accumulator is requantised by the ALU (shift right, clip)
and stored. An address outside an SRAM raises :class:`BufferOverflow`, so capacity is enforced by the
execution itself, not by the formula; tests compare both, and compare the result to a direct
convolution. Meant for small layers (seconds for a few million MACs).
"""

from __future__ import annotations

import numpy as np

from tensortune.accel.vta import UOP_BYTES, ConvShape, VtaHardware


class BufferOverflow(Exception):
    """An SRAM address beyond a buffer's depth; ``buffer`` names it (inp, wgt, acc, uop)."""

    def __init__(self, buffer: str, index: int, depth: int) -> None:
        super().__init__(f"{buffer} buffer overflow: entry {index} of a {depth}-entry buffer")
        self.buffer = buffer
        self.index = index
        self.depth = depth


class _Sram:
    def __init__(self, name: str, depth: int, entry_shape: tuple[int, ...], dtype: type) -> None:
        self.name = name
        self.depth = depth
        self.data = np.zeros((max(depth, 0), *entry_shape), dtype=dtype)

    def check(self, idx: np.ndarray) -> np.ndarray:
        if idx.size and (int(idx.max()) >= self.depth or int(idx.min()) < 0):
            raise BufferOverflow(self.name, int(idx.max()), self.depth)
        return idx


def direct_conv_int(layer: ConvShape, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Reference: int32 accumulation of a direct convolution (NCHW, OIHW)."""
    L = layer
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (L.pad, L.pad), (L.pad, L.pad)))
    out = np.zeros((L.N, L.K, L.OH, L.OW), dtype=np.int64)
    for r in range(L.R):
        for s in range(L.S):
            patch = xp[:, :, r: r + L.stride * (L.OH - 1) + 1: L.stride, s: s + L.stride * (L.OW - 1) + 1: L.stride]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, r, s].astype(np.int64))
    return out.astype(np.int32)


def requantize(acc: np.ndarray, shift: int) -> np.ndarray:
    """The ALU epilogue: arithmetic shift right, clip to int8."""
    return np.clip(acc >> shift, -127, 127).astype(np.int8)


def execute(layer: ConvShape, hw: VtaHardware, sw: dict[str, int], x: np.ndarray, w: np.ndarray,
            shift: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Run the schedule ``sw`` on design ``hw``; return (int32 accumulators, int8 outputs) in NCHW."""
    L = layer
    B, BI, BO = hw.BATCH, hw.BLOCK_IN, hw.BLOCK_OUT
    nb, nci, nco = -(-L.N // B), -(-L.C // BI), -(-L.K // BO)
    tb, th, tw, tci, tco = (int(sw[k]) for k in ("tile_b", "tile_h", "tile_w", "tile_ci", "tile_co"))
    ht, ot = int(sw["h_nthread"]), int(sw["oc_nthread"])
    if nb % tb or nci % tci or nco % tco or L.OH % th or L.OW % tw or th % ht or tco % ot:
        raise ValueError(f"schedule {sw} does not divide the layer's loops")
    th_t, tco_t = th // ht, tco // ot
    # pack into VTA's blocked layouts (channels and batch padded to whole blocks)
    xb = np.zeros((nb * B, nci * BI, L.H + 2 * L.pad, L.W + 2 * L.pad), dtype=np.int8)
    xb[: L.N, : L.C, L.pad: L.pad + L.H, L.pad: L.pad + L.W] = x
    data = xb.reshape(nb, B, nci, BI, *xb.shape[2:]).transpose(0, 2, 4, 5, 1, 3)  # [nb][nci][Hp][Wp][B][BI]
    wb = np.zeros((nco * BO, nci * BI, L.R, L.S), dtype=np.int8)
    wb[: L.K, : L.C] = w
    weight = wb.reshape(nco, BO, nci, BI, L.R, L.S).transpose(0, 2, 4, 5, 1, 3)  # [nco][nci][R][S][BO][BI]
    out = np.zeros((nb, nco, L.OH, L.OW, B, BO), dtype=np.int8)
    acc_out = np.zeros((nb, nco, L.OH, L.OW, B, BO), dtype=np.int32)

    inp = _Sram("inp", (2 ** hw.LOG_INP_BUFF_SIZE) // (B * BI), (B, BI), np.int8)
    wgt = _Sram("wgt", (2 ** hw.LOG_WGT_BUFF_SIZE) // (BO * BI), (BO, BI), np.int8)
    acc = _Sram("acc", (2 ** hw.LOG_ACC_BUFF_SIZE) // (B * BO * 4), (B, BO), np.int32)
    uop_depth = (2 ** hw.LOG_UOP_BUFF_SIZE) // UOP_BYTES

    in_h, in_w = (th_t - 1) * L.stride + L.R, (tw - 1) * L.stride + L.S
    inp_t, wgt_t, acc_t = tb * tci * in_h * in_w, tco_t * tci * L.R * L.S, tb * th_t * tw * tco_t
    vt = ht * ot
    # the micro-op kernel of one thread: loop nest (ci, r, s, b, w), innermost w
    ci_, r_, s_, b_, w_ = np.meshgrid(np.arange(tci), np.arange(L.R), np.arange(L.S), np.arange(tb), np.arange(tw),
                                      indexing="ij")
    u_acc = ((b_ * th_t) * tw + w_) * tco_t
    u_inp = ((b_ * tci + ci_) * in_h + r_) * in_w + w_ * L.stride + s_
    u_wgt = (ci_ * L.R + r_) * L.S + s_
    u_acc, u_inp, u_wgt = u_acc.ravel(), u_inp.ravel(), u_wgt.ravel()
    if vt * len(u_acc) > uop_depth:
        raise BufferOverflow("uop", vt * len(u_acc) - 1, uop_depth)
    # VTA's two GEMM loops: outer over tile rows (i0), inner over output-channel blocks (i1)
    acc_f0, acc_f1 = tw * tco_t, 1
    inp_f0, inp_f1 = L.stride * in_w, 0
    wgt_f0, wgt_f1 = 0, tci * L.R * L.S
    i0, i1 = np.meshgrid(np.arange(th_t), np.arange(tco_t), indexing="ij")
    i0, i1 = i0.ravel()[:, None], i1.ravel()[:, None]
    g_acc = (u_acc[None, :] + i0 * acc_f0 + i1 * acc_f1).ravel()
    g_inp = (u_inp[None, :] + i0 * inp_f0 + i1 * inp_f1).ravel()
    g_wgt = (u_wgt[None, :] + i0 * wgt_f0 + i1 * wgt_f1).ravel()

    threads = [(a, c) for a in range(ht) for c in range(ot)]
    for ob in range(nb // tb):
        for oh in range(L.OH // th):
            for oco in range(nco // tco):
                for ow in range(L.OW // tw):
                    for t in range(vt):  # reset each thread's accumulator region
                        acc.data[acc.check(t * acc_t + np.arange(acc_t))] = 0
                    for oci in range(nci // tci):
                        for t, (a, c) in enumerate(threads):
                            h0 = (oh * th + a * th_t) * L.stride  # row of the padded input
                            w0 = ow * tw * L.stride
                            tile = data[ob * tb:(ob + 1) * tb, oci * tci:(oci + 1) * tci, h0:h0 + in_h, w0:w0 + in_w]
                            inp.data[inp.check(t * inp_t + np.arange(inp_t))] = tile.reshape(-1, B, BI)
                            co0 = oco * tco + c * tco_t
                            wt = weight[co0:co0 + tco_t, oci * tci:(oci + 1) * tci]
                            wgt.data[wgt.check(t * wgt_t + np.arange(wgt_t))] = wt.reshape(-1, BO, BI)
                            ia, ii, iw = (acc.check(t * acc_t + g_acc), inp.check(t * inp_t + g_inp),
                                          wgt.check(t * wgt_t + g_wgt))
                            prod = np.einsum("ubi,uoi->ubo", inp.data[ii].astype(np.int32), wgt.data[iw].astype(np.int32))
                            np.add.at(acc.data, ia, prod)
                    for t, (a, c) in enumerate(threads):  # ALU epilogue and store
                        region = acc.data[t * acc_t:(t + 1) * acc_t].reshape(tb, th_t, tw, tco_t, B, BO)
                        hs = slice(oh * th + a * th_t, oh * th + (a + 1) * th_t)
                        cs = slice(oco * tco + c * tco_t, oco * tco + (c + 1) * tco_t)
                        ws = slice(ow * tw, (ow + 1) * tw)
                        bs = slice(ob * tb, (ob + 1) * tb)
                        blk = region.transpose(0, 3, 1, 2, 4, 5)  # [tb][tco][th][tw][B][BO]
                        acc_out[bs, cs, hs, ws] = blk
                        out[bs, cs, hs, ws] = requantize(blk, shift)

    def unpack(a: np.ndarray) -> np.ndarray:
        full = a.transpose(0, 4, 1, 5, 2, 3).reshape(nb * B, nco * BO, L.OH, L.OW)
        return full[: L.N, : L.K]

    return unpack(acc_out), unpack(out)
