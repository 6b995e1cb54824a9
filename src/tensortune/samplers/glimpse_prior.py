"""Glimpse's prior generator (the paper, section 3.2): from (layer, Blueprint) to one distribution per
knob, trained offline on the best configurations of other hardware and layers; the initial samples are
the configurations with the highest product of knob probabilities.

Knob options differ from space to space (a tile's options are the divisors of that layer's extent), so
the network predicts, per knob, a distribution over log2-magnitude bins (``space.magnitudes.magnitude``:
a number's value, a split's inner tile); each option of a concrete space gets its bin's probability,
shared among the options in that bin and renormalised over the space's options. A small MLP in
PyTorch, trained with cross-entropy against the bin histogram of each training pair's best configs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tensortune.space.magnitudes import magnitude

BINS = 16  # log2 magnitudes 0..15 (1 .. 32768 and beyond)


def _bins(log2_mag: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(log2_mag), 0, BINS - 1).astype(np.int64)


def _net(n_in: int, n_knobs: int, hidden: int) -> Any:
    import torch

    return torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                               torch.nn.ReLU(), torch.nn.Linear(hidden, n_knobs * BINS))


@dataclass
class PriorGenerator:
    knobs: list[str]
    mean: np.ndarray
    scale: np.ndarray
    state: dict[str, Any]  # the network's weights (lists, so the generator stores as JSON)
    hidden: int = 64
    trained_on: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def fit(cls, knobs: list[str], contexts: list[np.ndarray], best_mags: list[np.ndarray], *, epochs: int = 400,
            hidden: int = 64, seed: int = 0, trained_on: dict[str, Any] | None = None) -> PriorGenerator:
        """``best_mags``: per training (hardware, layer), the log2 magnitudes (n_best, n_knobs) of its best
        configurations."""
        import torch

        if not contexts or len(contexts) != len(best_mags):
            raise ValueError("the prior generator needs one context and one set of best configs per group")
        x = np.array(contexts, dtype=np.float64)
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        k = len(knobs)
        target = np.zeros((len(x), k, BINS))
        for g, m in enumerate(best_mags):
            b = _bins(np.asarray(m))
            for j in range(k):
                target[g, j] = np.bincount(b[:, j], minlength=BINS)[:BINS]
        target /= target.sum(axis=2, keepdims=True)
        torch.manual_seed(seed)
        net = _net(x.shape[1], k, hidden)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2, weight_decay=1e-4)
        xt = torch.tensor((x - mean) / scale, dtype=torch.float32)
        tt = torch.tensor(target, dtype=torch.float32)
        for _ in range(epochs):
            logp = torch.log_softmax(net(xt).view(len(x), k, BINS), dim=2)
            loss = -(tt * logp).sum(dim=2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        state = {n: p.detach().numpy().tolist() for n, p in net.state_dict().items()}
        return cls(list(knobs), mean, scale, state, hidden, dict(trained_on or {}))

    def bin_probs(self, context: np.ndarray) -> np.ndarray:
        """(n_knobs, BINS) predicted distribution of each knob's log2 magnitude."""
        import torch

        net = _net(len(self.mean), len(self.knobs), self.hidden)
        net.load_state_dict({n: torch.tensor(v) for n, v in self.state.items()})
        x = torch.tensor(((np.asarray(context) - self.mean) / self.scale)[None, :], dtype=torch.float32)
        with torch.no_grad():
            return torch.softmax(net(x).view(len(self.knobs), BINS), dim=1).numpy()

    def option_log_probs(self, context: np.ndarray, space: Any) -> list[np.ndarray]:
        """Per knob of ``space`` (by name, in the generator's knob order), log probability of each option."""
        names = [k.name for k in space.knobs]
        if names != self.knobs:
            raise ValueError(f"the prior was trained for knobs {self.knobs}, this space has {names}")
        probs = self.bin_probs(context)
        out = []
        for j, knob in enumerate(space.knobs):
            b = _bins(np.log2([magnitude(o) for o in knob.options]))
            # a bin's mass split among its options; a floor, so options whose bins got no mass at all stay
            # ordered (and a knob whose every option falls in such bins does not divide by zero)
            share = np.maximum(probs[j, b], 1e-12) / np.bincount(b, minlength=BINS)[b]
            share = share / share.sum()
            out.append(np.log(np.maximum(share, 1e-12)))
        return out

    def initial_indices(self, context: np.ndarray, space: Any, n: int, beam: int | None = None,
                        keep: Any = None) -> np.ndarray:
        """The ``n`` valid configurations (index matrix) with the highest product of knob probabilities,
        by a beam search over the knobs (exact when the beam holds every partial assignment). ``keep``
        (rows -> bool mask) filters them further, e.g. Glimpse's validity vote."""
        logp = self.option_log_probs(context, space)
        width = beam or max(50 * n, 5000)
        rows = np.zeros((1, 0), dtype=np.int64)
        score = np.zeros(1)
        for lp in logp:
            cand = score[:, None] + lp[None, :]
            r_idx, o_idx = np.unravel_index(np.argsort(-cand, axis=None)[:width], cand.shape)
            rows = np.concatenate([rows[r_idx], o_idx[:, None]], axis=1)
            score = cand[r_idx, o_idx]
        rows = rows[space.valid_mask(rows)]
        if keep is not None and len(rows):
            rows = rows[np.asarray(keep(rows), dtype=bool)]
        return rows[:n]

    def to_json(self) -> dict[str, Any]:
        return {"knobs": self.knobs, "mean": self.mean.tolist(), "scale": self.scale.tolist(), "state": self.state,
                "hidden": self.hidden, "trained_on": self.trained_on}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PriorGenerator:
        return cls(list(d["knobs"]), np.array(d["mean"]), np.array(d["scale"]), dict(d["state"]), int(d["hidden"]),
                   dict(d.get("trained_on", {})))
