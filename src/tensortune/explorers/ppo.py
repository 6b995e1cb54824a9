"""Chameleon's (and ReLeASE's) adaptive exploration: an actor-critic agent trained with PPO walks the
knob space, as the paper (ICLR 2020, section 3.2 and Table 9) and the authors' public code
(anony-sub/chameleon: ``rl_model_optimizer.py``, ``ppo_core.py``) describe it.

State: the knob-index vector, each index divided by its knob's number of options. Action: for every
knob, decrement / stay / increment (clamped at the boundaries), one 3-way softmax head per knob.
An iteration runs 128 episodes (walkers) one after another, each from a uniformly random config; a
walk moves without looking at validity or the cost model and ends when at least 75% of the knobs are
stuck (chose "stay" or sit at a boundary after the move) or after 500 steps. Then the whole walk is
scored by the cost model in one call, the raw predictions are the rewards, and PPO updates the agent
on that walk (GAE advantages normalised over the walk, a clipped ratio per knob, an entropy bonus per
knob, the value loss): an update after every episode. The candidates handed on are the ``n`` best
scored valid configs of all walks (the authors' ``find_maximums(model, plan_size, visited)``).

``variant`` chooses where the paper and the code disagree (default: the paper):

=============  ================================  =================================
               paper (Table 9, section 3.2)      code (``ppo_core.py``)
=============  ================================  =================================
clip           0.3                               0.2
entropy coef   0.1                               0.3
networks       a first layer shared by policy    separate policy (2 x 20 tanh) and
               and value (20 tanh), then 20      value (3 x 20 tanh) networks
               tanh each
=============  ================================  =================================

Common to both: Adam 1e-3, 3 epochs, minibatch 32, gamma 0.9, GAE lambda 0.99, value coefficient 1.0.

Remaining deviations, with their reasons:

- the code's per-knob heads have two extra tanh layers and a softmax temperature of 0.1; the paper
  does not describe them, and the "code" variant keeps one linear head per knob (it changes the
  networks' capacity, not the method);
- each PPO epoch here is a pass over shuffled minibatches of the walk (standard PPO); the code draws
  one random minibatch of 32 per epoch, so a long walk is mostly never trained on;
- the code pads a walk shorter than 150 steps with config 0 before scoring it (an XGBoost-batching
  workaround); not reproduced;
- PyTorch instead of TensorFlow 1.

The earlier (pre-issue-20) behaviour stays reachable for ablations, each part by one option:
``per_walker=False`` (all walkers in one batch, one update per round), ``per_knob_ratio=False`` (one
joint ratio over all knobs), ``reward="standardised"`` (scores standardised over the round),
``walk_validity=True`` (a move into an invalid config is refused and counts as stuck),
``incumbent_share=0.5`` (half of the walkers start at the best measured configs). ReLeASE's walkers
go on from where the previous iteration's walks ended (``persistent=True``; the ReLeASE paper:
"start search on top of previous iterations").

The rollout of the batched mode and the PPO update are the shared walker core
(``explorers/walker_rl.py``), written there rather than taken from stable-baselines3 or torchrl: the
environment's reward is a cost-model call on a whole walk and the action is a product of per-knob
categoricals; both libraries would need a custom environment and a custom multi-discrete policy for
this, and pull large dependency trees.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.explorers.base import ScoreFn
from tensortune.explorers.walker_rl import WalkerRL, ranked_candidates, start_points
from tensortune.space import Config, SearchSpace

VARIANTS = {"paper": {"clip": 0.3, "ent_coef": 0.1, "shared": True},
            "code": {"clip": 0.2, "ent_coef": 0.3, "shared": False}}


def _actor_critic(n_knobs: int, hidden: int, seed: int, shared: bool, per_knob: bool) -> Any:
    import torch
    from torch import nn

    class ActorCritic(nn.Module):
        """Policy (a 3-way head per knob) and value networks; ``agents`` are the groups of knobs that
        share one PPO ratio: each knob alone (per-knob ratio) or all knobs together (joint ratio)."""

        def __init__(self) -> None:
            super().__init__()
            self.n_knobs = n_knobs
            self.agents = [[i] for i in range(n_knobs)] if per_knob else [list(range(n_knobs))]
            self.shared = shared
            if shared:  # the paper: a first layer shared by both networks
                self.first = nn.Sequential(nn.Linear(n_knobs, hidden), nn.Tanh())
                self.pi = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 3 * n_knobs))
                self.v = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
            else:  # the code: separate networks, the value network one layer deeper
                self.first = nn.Identity()
                self.pi = nn.Sequential(nn.Linear(n_knobs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                        nn.Linear(hidden, 3 * n_knobs))
                self.v = nn.Sequential(nn.Linear(n_knobs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                       nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

        def forward(self, s: Any) -> tuple[list[Any], Any]:
            h = self.first(s)
            logits = self.pi(h).view(-1, self.n_knobs, 3)
            return [logits[:, a, :] for a in self.agents], self.v(h).squeeze(-1)

    torch.manual_seed(seed)
    return ActorCritic()


class PPOExplorer(WalkerRL):
    def __init__(self, n_walkers: int = 128, max_steps: int = 500, stuck_fraction: float = 0.75, hidden: int = 20,
                 lr: float = 1e-3, epochs: int = 3, minibatch: int = 32, gamma: float = 0.9, lam: float = 0.99,
                 variant: str = "paper", clip: float | None = None, vf_coef: float = 1.0,
                 ent_coef: float | None = None, max_train_samples: int = 4096, incumbent_share: float = 0.0,
                 per_walker: bool = True, per_knob_ratio: bool = True, reward: str = "raw",
                 walk_validity: bool = False, persistent: bool = False, seed: int = 0) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown Chameleon variant {variant!r}; choose from {', '.join(VARIANTS)}")
        if reward not in ("raw", "standardised"):
            raise ValueError(f"reward must be 'raw' or 'standardised', not {reward!r}")
        v = VARIANTS[variant]
        super().__init__(n_walkers=n_walkers, max_steps=max_steps, stuck_fraction=stuck_fraction, lr=lr,
                         epochs=epochs, minibatch=minibatch, gamma=gamma, lam=lam,
                         clip=v["clip"] if clip is None else clip,
                         ent_coef=v["ent_coef"] if ent_coef is None else ent_coef,
                         max_train_samples=max_train_samples, incumbent_share=incumbent_share, seed=seed)
        self.variant = variant
        self.shared = bool(v["shared"])
        self.hidden = hidden
        self.vf_coef = vf_coef
        self.per_walker = per_walker
        self.per_knob_ratio = per_knob_ratio
        self.reward = reward
        self.walk_validity = walk_validity
        self.persistent = persistent
        self.walk_lengths: list[float] = []  # mean steps per walk, per round
        self._ends: np.ndarray | None = None  # where the last round's walks ended (persistent starts)

    def _make_net(self, space: SearchSpace) -> Any:
        return _actor_critic(len(space.knobs), self.hidden, self.seed, self.shared, self.per_knob_ratio)

    def _net_fits(self, space: SearchSpace) -> bool:
        return bool(self._net.n_knobs == len(space.knobs))

    def _rewards(self, scores: np.ndarray, penalties: np.ndarray | None, alive: np.ndarray) -> np.ndarray:
        """The model's raw predictions (the paper), or standardised over the round's alive steps."""
        if self.reward == "raw":
            return scores
        mu, sd = scores[alive].mean(), scores[alive].std() + 1e-8
        return (scores - mu) / sd

    def _value_loss(self, v: Any, ret: Any) -> Any:
        return self.vf_coef * ((v - ret) ** 2).mean()

    def _extra_state(self) -> dict[str, Any]:
        return {"walk_lengths": self.walk_lengths}

    def _load_extra_state(self, st: dict[str, Any]) -> None:
        self.walk_lengths = [float(x) for x in st.get("walk_lengths", [])]

    # ------------------------------------------------------------------ one round
    def _starts(self, space: SearchSpace, incumbents: list[Config], rng: np.random.Generator) -> np.ndarray:
        if self.persistent and self._ends is not None and self._ends.shape == (self.n_walkers, len(space.knobs)):
            return self._ends.copy()
        return start_points(space, incumbents, self.n_walkers, self.incumbent_share, rng)

    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config], rng: np.random.Generator,
                incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        if not self.per_walker:  # the batched rollout of the shared core (one update per round)
            out = super().propose(space, score, n, exclude, rng, incumbents)
            self.walk_lengths.append(float(self.steps))
            return out
        import torch

        torch.set_num_threads(1)  # tiny networks: threads cost more than they give
        net = self._ensure(space)
        starts = self._starts(space, list(incumbents or []), rng)
        visited: dict[tuple[int, ...], float] = {}
        for p, s in zip(starts, score(starts), strict=True):
            visited[tuple(int(v) for v in p)] = float(s)
        self.queries = len(starts)
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        top = space.radices - 1
        lengths, ends = [], []
        for start in starts:
            pos = start.copy()
            states, actions, logps, values, points = [], [], [], [], []
            for _ in range(self.max_steps):
                s = self._obs(space, pos[None, :])
                with torch.no_grad():
                    logits_all, v = net.forward(s)
                move = np.zeros_like(pos)
                acts, lps = [], []
                for agent, logits in zip(net.agents, logits_all, strict=True):
                    probs = torch.softmax(logits, -1)
                    a = torch.multinomial(probs.reshape(-1, 3), 1, generator=gen).view(1, -1)
                    lps.append(torch.log(torch.gather(probs, 2, a.unsqueeze(-1)).squeeze(-1) + 1e-12).sum(-1))
                    acts.append(a)
                    move[agent] = a.numpy()[0] - 1
                new = np.clip(pos + move, 0, top)
                if self.walk_validity and not space.valid_mask(new[None, :], budgets=self.walk_budgets)[0]:
                    new = pos
                # stuck: chose "stay", or sits at a boundary after the move (the authors' rl_walk)
                stuck = int(((move == 0) | (new == 0) | (new == top)).sum()) if not self.walk_validity \
                    else int((new == pos).sum())
                states.append(s)
                actions.append(acts)
                logps.append(torch.stack(lps, 1))
                values.append(v)
                points.append(new)
                pos = new
                if stuck >= self.stuck_fraction * len(space.knobs):
                    break
            traj = np.array(points, dtype=np.int64)
            sc = np.asarray(score(traj), dtype=np.float64)
            self.queries += len(traj)
            for p, val in zip(traj, sc, strict=True):
                visited.setdefault(tuple(int(x) for x in p), float(val))
            T = len(traj)
            M = np.ones((T, 1), dtype=bool)
            R = self._rewards(sc[:, None], None, M)
            self._update(states, actions, logps, torch.stack(values).numpy().reshape(T, 1), R, M, rng)
            lengths.append(T)
            ends.append(pos)
        self._ends = np.array(ends, dtype=np.int64)
        self.steps = int(max(lengths))
        self.walk_lengths.append(float(np.mean(lengths)))
        self.rounds += 1
        return ranked_candidates(space, visited, exclude, n)
