"""Glimpse's neural acquisition function (the paper's "Hardware-Aware Exploration", after MetaBO).

An acquisition function scores the candidates a round may measure; Glimpse learns it instead of fixing
one (AutoTVM ranks by the cost model's prediction alone). As in MetaBO (Volpp et al., ICLR 2020) the
network sees, per candidate, the surrogate's posterior there (prediction ``mu`` and uncertainty
``sigma``, throughputs normalised by the best measured so far), the step ``t`` and the budget ``T``; as
in Glimpse it also sees the hardware's Blueprint. Its outputs over a round's candidates are the logits
of a softmax policy: a plan of ``n`` configs is drawn from it without replacement (a Plackett-Luce
sequence, so its probability is known for policy-gradient training) or, when tuning, its ``n`` highest
are taken. Training (PPO across hardware and layers) is in ``transfer/glimpse.py``; this file is the
network, its state and its use.

State columns per candidate: mu, sigma, the standardised improvement (mu - best) / sigma (clipped to
+-5), mu's and sigma's rank among the round's candidates (0..1), t / T, the budget left (1 - t / T), then
the Blueprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

HIDDEN = 32
POLICY_FORM = "mlp + gain x mu_rank"
BASE_COLUMNS = ["mu", "sigma", "z_improvement", "mu_rank", "sigma_rank", "step_fraction", "budget_left"]


def _ranks(v: np.ndarray) -> np.ndarray:
    if len(v) < 2:
        return np.zeros(len(v))
    return np.argsort(np.argsort(v, kind="stable"), kind="stable") / (len(v) - 1)


def acquisition_state(mu: np.ndarray, sigma: np.ndarray, best: float, step: int, budget: int,
                      blueprint: np.ndarray) -> np.ndarray:
    """(n_candidates, columns) state rows; ``mu``/``sigma``/``best`` on the scale of the surrogate's targets
    (throughput / best measured throughput)."""
    mu = np.asarray(mu, dtype=np.float64)
    sigma = np.asarray(sigma, dtype=np.float64)
    if mu.shape != sigma.shape or mu.ndim != 1:
        raise ValueError(f"mu and sigma must be vectors of one length, got {mu.shape} and {sigma.shape}")
    if budget < 1:
        raise ValueError(f"the budget must be positive, got {budget}")
    frac = min(max(step / budget, 0.0), 1.0)
    z = np.clip((mu - best) / np.maximum(sigma, 1e-6), -5.0, 5.0)
    n = len(mu)
    cols = [mu, sigma, z, _ranks(mu), _ranks(sigma), np.full(n, frac), np.full(n, 1.0 - frac)]
    bp = np.broadcast_to(np.asarray(blueprint, dtype=np.float64), (n, len(blueprint)))
    return np.column_stack([*cols, bp]) if n else np.zeros((0, len(BASE_COLUMNS) + len(blueprint)))


GREEDY_GAIN = 12.0  # the untrained policy's logit of a candidate: this x its mean's rank among the round's


def _net(n_in: int, hidden: int = HIDDEN) -> Any:
    """The policy network: an MLP plus a learned gain times ``mu_rank`` (a skip connection to greedy-by-mean).

    The MLP's output layer starts at zero, so the untrained policy *is* AutoTVM's acquisition (the
    highest predicted means are the greedy picks; sampling in training spreads over the top ranks) and
    PPO learns where to deviate from it. A plain MLP starts uniform over the candidates, and 30 PPO
    iterations on 24 VTA designs left it worse than greedy-by-mean on held-out ones (stop 27's ablation:
    50.5 measurements to 95% against 34.0)."""
    import torch

    class Policy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mlp = torch.nn.Sequential(torch.nn.Linear(n_in, hidden), torch.nn.Tanh(),
                                           torch.nn.Linear(hidden, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
            torch.nn.init.zeros_(self.mlp[4].weight)
            torch.nn.init.zeros_(self.mlp[4].bias)
            self.gain = torch.nn.Parameter(torch.tensor(GREEDY_GAIN))
            self.rank_col = BASE_COLUMNS.index("mu_rank")

        def forward(self, x: Any) -> Any:
            return self.mlp(x) + self.gain * x[..., self.rank_col: self.rank_col + 1]

    return Policy()


def plackett_luce_log_prob(logits: Any, chosen: Any) -> Any:
    """log P(chosen, in that order) when each pick is a softmax draw over the candidates not yet picked
    (torch tensors: logits (n,), chosen (k,) long)."""
    import torch

    mask = torch.zeros_like(logits, dtype=torch.bool)
    total = logits.new_zeros(())
    for a in chosen:
        live = logits.masked_fill(mask, float("-inf"))
        total = total + live[a] - torch.logsumexp(live, dim=0)
        mask = mask.clone()
        mask[a] = True
    return total


@dataclass
class NeuralAcquisition:
    """The acquisition network and its weights (lists, so it stores as JSON with Glimpse's other parts)."""

    n_in: int
    state: dict[str, Any] | None = None
    hidden: int = HIDDEN
    trained_on: dict[str, Any] = field(default_factory=dict)
    _module: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def new(cls, blueprint_dim: int, seed: int = 0, hidden: int = HIDDEN) -> NeuralAcquisition:
        import torch

        torch.manual_seed(seed)
        af = cls(len(BASE_COLUMNS) + blueprint_dim, None, hidden)
        af._module = _net(af.n_in, hidden)
        af.state = af._export()
        return af

    @property
    def module(self) -> Any:
        """The torch network (built from the stored weights on first use)."""
        import torch

        if self._module is None:
            self._module = _net(self.n_in, self.hidden)
            if self.state is not None:
                self._module.load_state_dict({k: torch.tensor(v, dtype=torch.float32) for k, v in self.state.items()})
        return self._module

    def _export(self) -> dict[str, Any]:
        return {k: v.detach().numpy().tolist() for k, v in self._module.state_dict().items()}

    def sync(self) -> None:
        """Store the network's current weights (after training)."""
        self.state = self._export()

    def logits(self, states: np.ndarray) -> np.ndarray:
        import torch

        states = np.asarray(states, dtype=np.float64)
        if states.ndim != 2 or states.shape[1] != self.n_in:
            raise ValueError(f"states must be (n, {self.n_in}), got {states.shape}")
        with torch.no_grad():
            return self.module(torch.tensor(states, dtype=torch.float32)).squeeze(-1).numpy().astype(np.float64)

    def choose(self, states: np.ndarray, n: int, rng: np.random.Generator | None = None) -> tuple[np.ndarray, float]:
        """Indices of ``n`` candidates: drawn from the policy (Gumbel top-k, which is a Plackett-Luce draw
        without replacement) when ``rng`` is given, else the ``n`` highest. Returns them in pick order with
        the log probability of that sequence under the policy."""
        import torch

        lg = self.logits(states)
        n = min(n, len(lg))
        if n <= 0:
            return np.zeros(0, dtype=np.int64), 0.0
        keys = lg + (rng.gumbel(size=len(lg)) if rng is not None else 0.0)
        picks = np.argsort(-keys, kind="stable")[:n]
        lp = plackett_luce_log_prob(torch.tensor(lg, dtype=torch.float32), torch.tensor(picks))
        return picks.astype(np.int64), float(lp)

    def to_json(self) -> dict[str, Any]:
        return {"n_in": self.n_in, "hidden": self.hidden, "state": self.state, "columns": BASE_COLUMNS,
                "form": POLICY_FORM, "trained_on": self.trained_on}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NeuralAcquisition:
        if list(d.get("columns", [])) != BASE_COLUMNS:
            raise ValueError(f"this acquisition function was trained on state columns {d.get('columns')}, "
                             f"this version builds {BASE_COLUMNS}: retrain it")
        if d.get("form") != POLICY_FORM:
            raise ValueError(f"this acquisition function is a {d.get('form') or 'plain MLP'} policy, this version "
                             f"builds a {POLICY_FORM} one: retrain it (tensortune glimpse-train)")
        return cls(int(d["n_in"]), dict(d["state"]), int(d["hidden"]), dict(d.get("trained_on", {})))


# ---------------------------------------------------------------------------------------------------------
# training: PPO over episodes (MetaBO trains its acquisition function with PPO as well)

@dataclass
class Decision:
    """One plan chosen by the network: the candidates' states, the picks (in order), their log
    probability when drawn, and the step's reward."""

    states: np.ndarray
    picks: np.ndarray
    logp: float
    reward: float = 0.0


def advantages(groups: list[list[list[Decision]]]) -> list[tuple[Decision, float]]:
    """Each decision with its advantage: its return-to-go minus the mean return-to-go at the same step of
    the other episodes of its group (episodes of one problem and budget: a Monte-Carlo baseline, no
    critic), normalised over the batch."""
    out: list[tuple[Decision, float]] = []
    for episodes in groups:
        rtg = [np.cumsum([d.reward for d in ep][::-1])[::-1] if ep else np.zeros(0) for ep in episodes]
        longest = max((len(r) for r in rtg), default=0)
        base = [float(np.mean([r[k] for r in rtg if len(r) > k])) for k in range(longest)]
        for ep, g in zip(episodes, rtg, strict=True):
            out += [(d, float(g[k] - base[k])) for k, d in enumerate(ep)]
    if out:
        a = np.array([x for _, x in out])
        a = (a - a.mean()) / (a.std() + 1e-8)
        out = [(d, float(v)) for (d, _), v in zip(out, a, strict=True)]
    return out


class PPOTrainer:
    """The clipped-surrogate PPO update of an acquisition network, with an entropy bonus on the policy."""

    def __init__(self, af: NeuralAcquisition, lr: float = 3e-3, clip: float = 0.2, entropy: float = 0.01,
                 epochs: int = 4) -> None:
        import torch

        self.af, self.clip, self.entropy, self.epochs = af, clip, entropy, epochs
        self.opt = torch.optim.Adam(af.module.parameters(), lr=lr)

    def update(self, groups: list[list[list[Decision]]]) -> float:
        """``epochs`` gradient steps on the batch; returns the last loss (0 for an empty batch)."""
        import torch

        batch = advantages(groups)
        if not batch:
            return 0.0
        net = self.af.module
        value = 0.0
        for _ in range(self.epochs):
            loss = torch.zeros(())
            for d, a in batch:
                logits = net(torch.tensor(d.states, dtype=torch.float32)).squeeze(-1)
                ratio = torch.exp(plackett_luce_log_prob(logits, torch.tensor(d.picks)) - d.logp)
                loss = loss - torch.minimum(ratio * a, torch.clamp(ratio, 1 - self.clip, 1 + self.clip) * a)
                p = torch.softmax(logits, dim=0)
                loss = loss + self.entropy * (p * torch.log(p + 1e-12)).sum()  # minus the entropy
            loss = loss / len(batch)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            value = float(loss.detach())
        self.af.sync()
        return value
