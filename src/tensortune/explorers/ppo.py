"""Chameleon's adaptive exploration: an actor-critic agent trained with PPO walks the knob space.

State: the knob-index vector, each index divided by its knob's number of options. Action: for every
knob at once, decrement, stay or increment (clamped at the boundaries). Reward: the cost model's
score of each visited configuration (normalised per round), so no hardware is touched. Walkers start
from the best measured configurations and from random ones; a walk ends when at least 75% of the
knobs are stuck (chose "stay" or hit a boundary) or after ``max_steps``. The agent keeps learning
across the rounds of one task.

Networks and PPO hyperparameters are the paper's (Table 9; shared/notes/paper-details.md): a shared
first layer of 20 tanh units, then a policy layer of 20 tanh units with one 3-way softmax head per knob
and a value layer of 20 tanh units; Adam 1e-3, 3 epochs, minibatch 32, gamma 0.9, GAE lambda 0.99,
clip 0.3, value coefficient 1.0, entropy coefficient 0.1.

The rollout and the PPO update are the shared walker core (``explorers/walker_rl.py``), written there
rather than taken from stable-baselines3 or torchrl:
the environment is a batch of 128 walkers whose reward is a cost-model call on the whole batch, and
the action is a product of per-knob categoricals; both libraries would need a custom vectorised
environment and a custom multi-discrete policy for this, and pull large dependency trees.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.explorers.walker_rl import WalkerRL
from tensortune.space import SearchSpace


def _actor_critic(n_knobs: int, hidden: int, seed: int) -> Any:
    import torch
    from torch import nn

    class ActorCritic(nn.Module):
        """A shared first layer, then a policy layer with a 3-way head per knob and a value layer;
        one agent over all knobs (a joint ratio in the PPO update)."""

        def __init__(self) -> None:
            super().__init__()
            self.n_knobs = n_knobs
            self.agents = [list(range(n_knobs))]
            self.shared = nn.Sequential(nn.Linear(n_knobs, hidden), nn.Tanh())
            self.pi = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 3 * n_knobs))
            self.v = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

        def forward(self, s: Any) -> tuple[list[Any], Any]:
            h = self.shared(s)
            return [self.pi(h).view(-1, self.n_knobs, 3)], self.v(h).squeeze(-1)

    torch.manual_seed(seed)
    return ActorCritic()


class PPOExplorer(WalkerRL):
    def __init__(self, n_walkers: int = 128, max_steps: int = 500, stuck_fraction: float = 0.75, hidden: int = 20,
                 lr: float = 1e-3, epochs: int = 3, minibatch: int = 32, gamma: float = 0.9, lam: float = 0.99,
                 clip: float = 0.3, vf_coef: float = 1.0, ent_coef: float = 0.1, max_train_samples: int = 4096,
                 incumbent_share: float = 0.5, seed: int = 0) -> None:
        super().__init__(n_walkers=n_walkers, max_steps=max_steps, stuck_fraction=stuck_fraction, lr=lr,
                         epochs=epochs, minibatch=minibatch, gamma=gamma, lam=lam, clip=clip, ent_coef=ent_coef,
                         max_train_samples=max_train_samples, incumbent_share=incumbent_share, seed=seed)
        self.hidden = hidden
        self.vf_coef = vf_coef

    def _make_net(self, space: SearchSpace) -> Any:
        return _actor_critic(len(space.knobs), self.hidden, self.seed)

    def _net_fits(self, space: SearchSpace) -> bool:
        return bool(self._net.n_knobs == len(space.knobs))

    def _rewards(self, scores: np.ndarray, penalties: np.ndarray | None, alive: np.ndarray) -> np.ndarray:
        """The model's scores, standardised over the round's alive steps."""
        mu, sd = scores[alive].mean(), scores[alive].std() + 1e-8
        return (scores - mu) / sd

    def _value_loss(self, v: Any, ret: Any) -> Any:
        return self.vf_coef * ((v - ret) ** 2).mean()
