"""2-D convolution, NCHW data and OIHW weights, fp32."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _pair(v: int | tuple[int, int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


@dataclass(frozen=True)
class Conv2d:
    batch: int
    in_channels: int
    height: int
    width: int
    out_channels: int
    kernel: tuple[int, int]
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    dilation: tuple[int, int] = (1, 1)

    op = "conv2d_nchw"

    @classmethod
    def make(cls, batch: int, in_channels: int, height: int, width: int, out_channels: int,
             kernel: int | tuple[int, int], stride: int | tuple[int, int] = 1,
             padding: int | tuple[int, int] = 0, dilation: int | tuple[int, int] = 1) -> Conv2d:
        w = cls(batch, in_channels, height, width, out_channels, _pair(kernel), _pair(stride), _pair(padding), _pair(dilation))
        w.validate()
        return w

    def validate(self) -> None:
        """Raise ValueError with a clear message for impossible shapes."""
        for name in ("batch", "in_channels", "height", "width", "out_channels"):
            if getattr(self, name) < 1:
                raise ValueError(f"conv2d: {name} must be >= 1, got {getattr(self, name)}")
        if min(self.kernel) < 1 or min(self.stride) < 1 or min(self.dilation) < 1:
            raise ValueError(f"conv2d: kernel, stride and dilation must be >= 1 (got {self.kernel}, {self.stride}, {self.dilation})")
        if min(self.padding) < 0:
            raise ValueError(f"conv2d: padding must be >= 0, got {self.padding}")
        oh, ow = self.out_hw
        if oh < 1 or ow < 1:
            raise ValueError(
                f"conv2d: a {self.kernel[0]}x{self.kernel[1]} kernel (dilation {self.dilation}) does not fit a "
                f"{self.height}x{self.width} input with padding {self.padding}")

    @property
    def out_hw(self) -> tuple[int, int]:
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.kernel, self.stride, self.padding, self.dilation
        oh = (self.height + 2 * ph - (kh - 1) * dh - 1) // sh + 1
        ow = (self.width + 2 * pw - (kw - 1) * dw - 1) // sw + 1
        return oh, ow

    @property
    def key(self) -> str:
        k, s, p, d = self.kernel, self.stride, self.padding, self.dilation
        return (f"conv2d_nchw(n={self.batch},c={self.in_channels},h={self.height},w={self.width},"
                f"k={self.out_channels},kernel={k[0]}x{k[1]},stride={s[0]}x{s[1]},pad={p[0]}x{p[1]},dil={d[0]}x{d[1]})")

    @property
    def flops(self) -> int:
        oh, ow = self.out_hw
        return 2 * self.batch * self.out_channels * oh * ow * self.in_channels * self.kernel[0] * self.kernel[1]

    @property
    def input_shapes(self) -> list[tuple[int, ...]]:
        return [(self.batch, self.in_channels, self.height, self.width),
                (self.out_channels, self.in_channels, *self.kernel)]

    @property
    def output_shape(self) -> tuple[int, ...]:
        return (self.batch, self.out_channels, *self.out_hw)

    def make_inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.uniform(-1, 1, size=s).astype("float32") for s in self.input_shapes]

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        """Direct convolution in NumPy (im2col + matmul, float64 accumulate)."""
        data, weight = inputs
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = self.kernel, self.stride, self.padding, self.dilation
        oh, ow = self.out_hw
        x = np.pad(data.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        cols = np.empty((self.batch, self.in_channels, kh, kw, oh, ow))
        for i in range(kh):
            for j in range(kw):
                cols[:, :, i, j] = x[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw]
        cols = cols.reshape(self.batch, -1, oh * ow)
        w = weight.astype(np.float64).reshape(self.out_channels, -1)
        out = np.einsum("kr,nrp->nkp", w, cols, optimize=True)
        return out.reshape(self.batch, self.out_channels, oh, ow).astype("float32")

    def describe(self) -> str:
        oh, ow = self.out_hw
        return (f"{self.in_channels}x{self.height}x{self.width} -> {self.out_channels}, "
                f"{self.kernel[0]}x{self.kernel[1]}/{self.stride[0]} pad {self.padding[0]} -> {oh}x{ow}")
