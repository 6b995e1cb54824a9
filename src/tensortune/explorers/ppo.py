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

The PPO loop is written here (about 100 lines) rather than taken from stable-baselines3 or torchrl:
the environment is a batch of 128 walkers whose reward is a cost-model call on the whole batch, and
the action is a product of per-knob categoricals; both libraries would need a custom vectorised
environment and a custom multi-discrete policy for this, and pull large dependency trees.
"""

from __future__ import annotations

import io

import numpy as np

from tensortune.explorers.base import ScoreFn
from tensortune.explorers.walkers import gae, start_points
from tensortune.space import Config, SearchSpace


class _ActorCritic:
    def __init__(self, n_knobs: int, hidden: int, seed: int) -> None:
        import torch
        from torch import nn

        torch.manual_seed(seed)
        self.n_knobs = n_knobs
        self.shared = nn.Sequential(nn.Linear(n_knobs, hidden), nn.Tanh())
        self.pi = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 3 * n_knobs))
        self.v = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.modules = nn.ModuleList([self.shared, self.pi, self.v])

    def forward(self, s):  # type: ignore[no-untyped-def]
        h = self.shared(s)
        logits = self.pi(h).view(-1, self.n_knobs, 3)
        return logits, self.v(h).squeeze(-1)


class PPOExplorer:
    def __init__(self, n_walkers: int = 128, max_steps: int = 500, stuck_fraction: float = 0.75, hidden: int = 20,
                 lr: float = 1e-3, epochs: int = 3, minibatch: int = 32, gamma: float = 0.9, lam: float = 0.99,
                 clip: float = 0.3, vf_coef: float = 1.0, ent_coef: float = 0.1, max_train_samples: int = 4096,
                 incumbent_share: float = 0.5, seed: int = 0) -> None:
        self.n_walkers = n_walkers
        self.max_steps = max_steps
        self.stuck_fraction = stuck_fraction
        self.hidden = hidden
        self.lr = lr
        self.epochs = epochs
        self.minibatch = minibatch
        self.gamma = gamma
        self.lam = lam
        self.clip = clip
        self.vf_coef = vf_coef
        self.ent_coef = ent_coef
        self.max_train_samples = max_train_samples
        self.incumbent_share = incumbent_share
        self.seed = seed
        self.steps = 0
        self.queries = 0  # configurations scored by the cost model in the last round
        self.rounds = 0
        self._net: _ActorCritic | None = None
        self._opt = None

    # ------------------------------------------------------------------ agent
    def _ensure(self, n_knobs: int) -> _ActorCritic:
        import torch

        if self._net is None or self._net.n_knobs != n_knobs:
            self._net = _ActorCritic(n_knobs, self.hidden, self.seed)
            self._opt = torch.optim.Adam(self._net.modules.parameters(), lr=self.lr)
        return self._net

    def state_bytes(self) -> bytes | None:
        import torch

        if self._net is None:
            return None
        buf = io.BytesIO()
        torch.save({"net": self._net.modules.state_dict(), "opt": self._opt.state_dict(),  # type: ignore[union-attr]
                    "n_knobs": self._net.n_knobs, "rounds": self.rounds}, buf)
        return buf.getvalue()

    def load_state_bytes(self, data: bytes) -> None:
        import torch

        st = torch.load(io.BytesIO(data), weights_only=True)
        net = self._ensure(int(st["n_knobs"]))
        net.modules.load_state_dict(st["net"])
        self._opt.load_state_dict(st["opt"])  # type: ignore[union-attr]
        self.rounds = int(st["rounds"])

    # ------------------------------------------------------------------ one round
    def _starts(self, space: SearchSpace, incumbents: list[Config], rng: np.random.Generator) -> np.ndarray:
        return start_points(space, incumbents, self.n_walkers, self.incumbent_share, rng)

    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config], rng: np.random.Generator,
                incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        import torch

        torch.set_num_threads(1)  # tiny networks: threads cost more than they give
        net = self._ensure(len(space.knobs))
        top = (space.radices - 1).clip(min=1).astype(np.float32)
        pos = self._starts(space, list(incumbents or []), rng)
        W = len(pos)
        cur_score = score(pos)
        self.queries = W
        visited: dict[tuple[int, ...], float] = {}
        for p, s in zip(pos, cur_score, strict=True):
            visited[tuple(int(v) for v in p)] = float(s)
        states, actions, logps, values, rewards, alive_mask = [], [], [], [], [], []
        alive = np.ones(W, dtype=bool)
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        step = 0
        for step in range(1, self.max_steps + 1):  # noqa: B007
            s = torch.from_numpy(pos.astype(np.float32) / top)
            with torch.no_grad():
                logits, v = net.forward(s)
                probs = torch.softmax(logits, -1)
                a = torch.multinomial(probs.view(-1, 3), 1, generator=gen).view(W, -1)
                lp = torch.log(torch.gather(probs, 2, a.unsqueeze(-1)).squeeze(-1) + 1e-12).sum(-1)
            move = a.numpy() - 1
            new = np.clip(pos + move, 0, space.radices - 1)
            valid = space.valid_mask(new)
            new = np.where(valid[:, None], new, pos)
            stuck = ((new == pos).sum(axis=1)) >= self.stuck_fraction * len(space.knobs)
            new_score = score(new)
            self.queries += int(alive.sum())
            states.append(s)
            actions.append(a)
            logps.append(lp)
            values.append(v)
            rewards.append(new_score)
            alive_mask.append(alive.copy())
            for p, sc, al in zip(new, new_score, alive, strict=True):
                if al:
                    visited.setdefault(tuple(int(x) for x in p), float(sc))
            pos = np.where(alive[:, None], new, pos)
            alive &= ~stuck
            if not alive.any():
                break
        self.steps = step
        self._update(states, actions, logps, values, rewards, alive_mask, rng)
        self.rounds += 1
        excluded = {c.indices for c in exclude}
        ranked = sorted(((k, v) for k, v in visited.items() if k not in excluded and space.is_valid(Config(k))),
                        key=lambda kv: -kv[1])
        return [(Config(k), s) for k, s in ranked[:n]]

    def _update(self, states, actions, logps, values, rewards, alive_mask, rng) -> None:  # type: ignore[no-untyped-def]
        import torch

        R = np.array(rewards, dtype=np.float64)  # (T, W)
        M = np.array(alive_mask, dtype=bool)
        mu, sd = R[M].mean(), R[M].std() + 1e-8
        R = (R - mu) / sd
        V = torch.stack(values).numpy()  # (T, W)
        adv = gae(R, V, M, self.gamma, self.lam)
        ret = adv + V
        idx = np.argwhere(M)
        if len(idx) > self.max_train_samples:
            idx = idx[rng.choice(len(idx), self.max_train_samples, replace=False)]
        S = torch.stack(states)[idx[:, 0], idx[:, 1]]
        A = torch.stack(actions)[idx[:, 0], idx[:, 1]]
        LP = torch.stack(logps)[idx[:, 0], idx[:, 1]]
        ADV = torch.from_numpy(adv[idx[:, 0], idx[:, 1]]).float()
        ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8)
        RET = torch.from_numpy(ret[idx[:, 0], idx[:, 1]]).float()
        net, opt = self._net, self._opt
        assert net is not None and opt is not None
        n = len(idx)
        for _ in range(self.epochs):
            perm = torch.from_numpy(rng.permutation(n))
            for b in range(0, n, self.minibatch):
                j = perm[b:b + self.minibatch]
                logits, v = net.forward(S[j])
                logp_all = torch.log_softmax(logits, -1)
                lp = torch.gather(logp_all, 2, A[j].unsqueeze(-1)).squeeze(-1).sum(-1)
                ratio = torch.exp(lp - LP[j])
                pg = -torch.min(ratio * ADV[j], torch.clamp(ratio, 1 - self.clip, 1 + self.clip) * ADV[j]).mean()
                vloss = ((v - RET[j]) ** 2).mean()
                ent = -(logp_all.exp() * logp_all).sum(-1).sum(-1).mean()
                loss = pg + self.vf_coef * vloss - self.ent_coef * ent
                opt.zero_grad()
                loss.backward()
                opt.step()
