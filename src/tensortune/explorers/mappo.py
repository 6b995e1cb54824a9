"""ARCO's multi-agent exploration: one actor per knob group and a centralized critic, trained with MAPPO.

Agents are the space's knob groups; on the VTA spaces (``templates/vta_conv2d.py``) those are ARCO's
three (Table 2 of the paper): a *hardware* agent (GEMM shape, buffers, bus, and the batch/channel tiles
that map onto them), a *scheduling* agent (virtual threads) and a *mapping* agent (spatial tiles).

Centralized training, decentralized execution (CTDE): at every step each actor independently picks,
for each of its own knobs, decrement / stay / increment from its policy over the observed current
configuration (every knob index divided by its option count); the joint move is applied. A single
critic V(s) over the global state is trained on the shared reward, its GAE advantages train every
actor with its own clipped PPO ratio (MAPPO, Yu et al. 2022). Networks as in the ARCO paper: actors
have one hidden layer of 20 ReLU units and softmax heads, the critic three hidden layers of 20 tanh
units. MAPPO's published defaults: Adam 5e-4, 5 epochs, clip 0.2, gamma 0.99, GAE lambda 0.95,
entropy 0.01, Huber value loss (delta 10).

Reward (ARCO section 3.2): the cost model's predicted throughput (1 / time, normalised per round)
minus ``penalty_lambda`` times the space's budget penalty (relative excess of area and on-chip memory
over their budgets). Walkers may cross over-budget designs, paying the penalty, but only configurations
within every constraint are proposed for measurement. Episodes as in ARCO's Table 4 (taken from
Chameleon): 128 walkers, up to 500 steps, a walk ends when at least 75% of the knobs are stuck.

The critic's values are exposed (:meth:`values`) for confidence sampling. The rollout and the PPO
update are the shared walker core (``explorers/walker_rl.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.explorers.walker_rl import WalkerRL
from tensortune.space import SearchSpace


def _nets(n_knobs: int, agents: list[list[int]], hidden: int, critic_layers: int, seed: int) -> Any:
    import torch
    from torch import nn

    class Nets(nn.Module):
        """One actor per agent (its knobs' heads), one centralized critic."""

        def __init__(self) -> None:
            super().__init__()
            self.n_knobs = n_knobs
            self.agents = agents
            self.actors = nn.ModuleList([nn.Sequential(nn.Linear(n_knobs, hidden), nn.ReLU(),
                                                       nn.Linear(hidden, 3 * len(a))) for a in agents])
            layers: list[nn.Module] = []
            width = n_knobs
            for _ in range(critic_layers):
                layers += [nn.Linear(width, hidden), nn.Tanh()]
                width = hidden
            self.critic = nn.Sequential(*layers, nn.Linear(width, 1))

        def forward(self, s: Any) -> tuple[list[Any], Any]:
            return [actor(s).view(len(s), -1, 3) for actor in self.actors], self.critic(s).squeeze(-1)

    torch.manual_seed(seed)
    return Nets()


class MAPPOExplorer(WalkerRL):
    walk_budgets = False  # walkers may cross over-budget designs, paying the penalty
    uses_penalty = True

    def __init__(self, n_walkers: int = 128, max_steps: int = 500, stuck_fraction: float = 0.75, hidden: int = 20,
                 critic_layers: int = 3, lr: float = 5e-4, epochs: int = 5, minibatch: int = 256, gamma: float = 0.99,
                 lam: float = 0.95, clip: float = 0.2, ent_coef: float = 0.01, huber_delta: float = 10.0,
                 penalty_lambda: float = 10.0, max_train_samples: int = 4096, incumbent_share: float = 0.5,
                 seed: int = 0) -> None:
        super().__init__(n_walkers=n_walkers, max_steps=max_steps, stuck_fraction=stuck_fraction, lr=lr,
                         epochs=epochs, minibatch=minibatch, gamma=gamma, lam=lam, clip=clip, ent_coef=ent_coef,
                         max_train_samples=max_train_samples, incumbent_share=incumbent_share, seed=seed)
        self.hidden = hidden
        self.critic_layers = critic_layers
        self.huber_delta = huber_delta
        self.penalty_lambda = penalty_lambda
        self.reward_history: list[float] = []  # mean raw reward (score - lambda * penalty) per round

    @staticmethod
    def agents_of(space: SearchSpace) -> tuple[list[str], list[list[int]]]:
        groups = space.groups()
        names = sorted(groups)
        pos = {k.name: i for i, k in enumerate(space.knobs)}
        return names, [[pos[n] for n in groups[g]] for g in names]

    def _make_net(self, space: SearchSpace) -> Any:
        return _nets(len(space.knobs), self.agents_of(space)[1], self.hidden, self.critic_layers, self.seed)

    def _net_fits(self, space: SearchSpace) -> bool:
        return bool(self._net.n_knobs == len(space.knobs) and self._net.agents == self.agents_of(space)[1])

    def _rewards(self, scores: np.ndarray, penalties: np.ndarray | None, alive: np.ndarray) -> np.ndarray:
        """Standardised predicted throughput minus lambda times the budget penalty."""
        assert penalties is not None
        mu, sd = scores[alive].mean(), scores[alive].std() + 1e-8
        self.reward_history.append(float((scores - self.penalty_lambda * penalties * sd)[alive].mean()))
        return (scores - mu) / sd - self.penalty_lambda * penalties

    def _value_loss(self, v: Any, ret: Any) -> Any:
        import torch

        return torch.nn.functional.huber_loss(v, ret, delta=self.huber_delta)

    def _extra_state(self) -> dict[str, Any]:
        return {"rewards": self.reward_history}

    def _load_extra_state(self, st: dict[str, Any]) -> None:
        self.reward_history = [float(x) for x in st.get("rewards", [])]
