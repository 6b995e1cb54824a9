"""Dense (fully connected) layer: out[m, n] = sum_k data[m, k] * weight[n, k], fp32."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Dense:
    batch: int
    in_features: int
    out_features: int

    op = "dense"

    @classmethod
    def make(cls, batch: int, in_features: int, out_features: int) -> Dense:
        w = cls(batch, in_features, out_features)
        w.validate()
        return w

    def validate(self) -> None:
        for name in ("batch", "in_features", "out_features"):
            if getattr(self, name) < 1:
                raise ValueError(f"dense: {name} must be >= 1, got {getattr(self, name)}")

    @property
    def key(self) -> str:
        return f"dense(m={self.batch},k={self.in_features},n={self.out_features})"

    @property
    def flops(self) -> int:
        return 2 * self.batch * self.in_features * self.out_features

    @property
    def input_shapes(self) -> list[tuple[int, ...]]:
        return [(self.batch, self.in_features), (self.out_features, self.in_features)]

    @property
    def output_shape(self) -> tuple[int, ...]:
        return (self.batch, self.out_features)

    def make_inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.uniform(-1, 1, size=s).astype("float32") for s in self.input_shapes]

    def reference(self, inputs: list[np.ndarray]) -> np.ndarray:
        data, weight = inputs
        return (data.astype(np.float64) @ weight.astype(np.float64).T).astype("float32")

    def describe(self) -> str:
        return f"{self.batch}x{self.in_features} -> {self.out_features}"
