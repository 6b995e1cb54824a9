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

The critic's values are exposed (:meth:`values`) for confidence sampling.
"""

from __future__ import annotations

import io

import numpy as np

from tensortune.explorers.base import ScoreFn
from tensortune.explorers.walkers import gae, start_points
from tensortune.space import Config, SearchSpace


class _Nets:
    def __init__(self, n_knobs: int, agents: list[list[int]], hidden: int, critic_layers: int, seed: int) -> None:
        import torch
        from torch import nn

        torch.manual_seed(seed)
        self.n_knobs = n_knobs
        self.agents = agents
        self.actors = nn.ModuleList([nn.Sequential(nn.Linear(n_knobs, hidden), nn.ReLU(), nn.Linear(hidden, 3 * len(a)))
                                     for a in agents])
        layers: list[nn.Module] = []
        width = n_knobs
        for _ in range(critic_layers):
            layers += [nn.Linear(width, hidden), nn.Tanh()]
            width = hidden
        self.critic = nn.Sequential(*layers, nn.Linear(width, 1))
        self.all = nn.ModuleList([self.actors, self.critic])

    def logits(self, s):  # type: ignore[no-untyped-def]
        """Per agent, logits of shape (batch, its knobs, 3)."""
        return [actor(s).view(len(s), -1, 3) for actor in self.actors]

    def value(self, s):  # type: ignore[no-untyped-def]
        return self.critic(s).squeeze(-1)


class MAPPOExplorer:
    def __init__(self, n_walkers: int = 128, max_steps: int = 500, stuck_fraction: float = 0.75, hidden: int = 20,
                 critic_layers: int = 3, lr: float = 5e-4, epochs: int = 5, minibatch: int = 256, gamma: float = 0.99,
                 lam: float = 0.95, clip: float = 0.2, ent_coef: float = 0.01, huber_delta: float = 10.0,
                 penalty_lambda: float = 10.0, max_train_samples: int = 4096, incumbent_share: float = 0.5,
                 seed: int = 0) -> None:
        self.n_walkers = n_walkers
        self.max_steps = max_steps
        self.stuck_fraction = stuck_fraction
        self.hidden = hidden
        self.critic_layers = critic_layers
        self.lr = lr
        self.epochs = epochs
        self.minibatch = minibatch
        self.gamma = gamma
        self.lam = lam
        self.clip = clip
        self.ent_coef = ent_coef
        self.huber_delta = huber_delta
        self.penalty_lambda = penalty_lambda
        self.max_train_samples = max_train_samples
        self.incumbent_share = incumbent_share
        self.seed = seed
        self.steps = 0
        self.queries = 0
        self.rounds = 0
        self.reward_history: list[float] = []  # mean raw reward (score - lambda * penalty) per round
        self._nets: _Nets | None = None
        self._opt = None
        self._space: SearchSpace | None = None

    # ------------------------------------------------------------------ agents
    @staticmethod
    def agents_of(space: SearchSpace) -> tuple[list[str], list[list[int]]]:
        groups = space.groups()
        names = sorted(groups)
        pos = {k.name: i for i, k in enumerate(space.knobs)}
        return names, [[pos[n] for n in groups[g]] for g in names]

    def _ensure(self, space: SearchSpace) -> _Nets:
        import torch

        _, agents = self.agents_of(space)
        if self._nets is None or self._nets.n_knobs != len(space.knobs) or self._nets.agents != agents:
            self._nets = _Nets(len(space.knobs), agents, self.hidden, self.critic_layers, self.seed)
            self._opt = torch.optim.Adam(self._nets.all.parameters(), lr=self.lr)
        self._space = space
        return self._nets

    def _obs(self, space: SearchSpace, idx: np.ndarray):  # type: ignore[no-untyped-def]
        import torch

        top = (space.radices - 1).clip(min=1).astype(np.float32)
        return torch.from_numpy(np.asarray(idx, dtype=np.float32) / top)

    def values(self, space: SearchSpace, idx: np.ndarray) -> np.ndarray:
        """The centralized critic's value of each configuration (rows of option indices)."""
        import torch

        self._restore(space)
        nets = self._ensure(space)
        with torch.no_grad():
            return nets.value(self._obs(space, idx)).numpy().astype(np.float64)

    def state_bytes(self) -> bytes | None:
        import torch

        if self._nets is None:
            return None
        buf = io.BytesIO()
        torch.save({"nets": self._nets.all.state_dict(), "opt": self._opt.state_dict(),  # type: ignore[union-attr]
                    "rounds": self.rounds, "rewards": self.reward_history}, buf)
        return buf.getvalue()

    def load_state_bytes(self, data: bytes, space: SearchSpace | None = None) -> None:
        import torch

        st = torch.load(io.BytesIO(data), weights_only=True)
        self._pending = st
        if space is not None:
            self._restore(space)

    def _restore(self, space: SearchSpace) -> None:
        st = getattr(self, "_pending", None)
        if st is None:
            return
        nets = self._ensure(space)
        nets.all.load_state_dict(st["nets"])
        self._opt.load_state_dict(st["opt"])  # type: ignore[union-attr]
        self.rounds = int(st["rounds"])
        self.reward_history = [float(x) for x in st["rewards"]]
        self._pending = None

    # ------------------------------------------------------------------ one round
    def _starts(self, space: SearchSpace, incumbents: list[Config], rng: np.random.Generator) -> np.ndarray:
        return start_points(space, incumbents, self.n_walkers, self.incumbent_share, rng)

    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config], rng: np.random.Generator,
                incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        import torch

        torch.set_num_threads(1)
        self._restore(space)
        nets = self._ensure(space)
        pos = self._starts(space, list(incumbents or []), rng)
        W = len(pos)
        visited: dict[tuple[int, ...], float] = {}
        first = score(pos)
        self.queries = W
        for p, s in zip(pos, first, strict=True):
            visited[tuple(int(v) for v in p)] = float(s)
        states, actions, logps, rewards, alive_mask = [], [], [], [], []
        alive = np.ones(W, dtype=bool)
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        step = 0
        for step in range(1, self.max_steps + 1):  # noqa: B007
            s = self._obs(space, pos)
            move = np.zeros_like(pos)
            acts, lps = [], []
            with torch.no_grad():
                for agent, logits in zip(nets.agents, nets.logits(s), strict=True):  # decentralized execution
                    probs = torch.softmax(logits, -1)
                    a = torch.multinomial(probs.reshape(-1, 3), 1, generator=gen).view(W, -1)
                    lps.append(torch.log(torch.gather(probs, 2, a.unsqueeze(-1)).squeeze(-1) + 1e-12).sum(-1))
                    acts.append(a)
                    move[:, agent] = a.numpy() - 1
            new = np.clip(pos + move, 0, space.radices - 1)
            ok = space.valid_mask(new, budgets=False)
            new = np.where(ok[:, None], new, pos)
            stuck = (new == pos).sum(axis=1) >= self.stuck_fraction * len(space.knobs)
            sc = score(new)
            self.queries += int(alive.sum())
            states.append(s)
            actions.append(acts)
            logps.append(torch.stack(lps, 1))  # (W, n_agents)
            rewards.append((sc, space.penalty(new)))
            alive_mask.append(alive.copy())
            for p, v, al in zip(new, sc, alive, strict=True):
                if al:
                    visited.setdefault(tuple(int(x) for x in p), float(v))
            pos = np.where(alive[:, None], new, pos)
            alive &= ~stuck
            if not alive.any():
                break
        self.steps = step
        self._update(states, actions, logps, rewards, alive_mask, rng)
        self.rounds += 1
        excluded = {c.indices for c in exclude}
        keys = [k for k in visited if k not in excluded]
        if keys:
            ok = space.valid_mask(np.array(keys, dtype=np.int64))
            keys = [k for k, good in zip(keys, ok, strict=True) if good]
        ranked = sorted(keys, key=lambda k: -visited[k])
        return [(Config(k), visited[k]) for k in ranked[:n]]

    def _update(self, states, actions, logps, rewards, alive_mask, rng) -> None:  # type: ignore[no-untyped-def]
        import torch

        nets, opt = self._nets, self._opt
        assert nets is not None and opt is not None
        M = np.array(alive_mask, dtype=bool)
        S_raw = np.array([r[0] for r in rewards], dtype=np.float64)
        P = np.array([r[1] for r in rewards], dtype=np.float64)
        mu, sd = S_raw[M].mean(), S_raw[M].std() + 1e-8
        R = (S_raw - mu) / sd - self.penalty_lambda * P
        self.reward_history.append(float((S_raw - self.penalty_lambda * P * sd)[M].mean()))
        with torch.no_grad():
            V = torch.stack([nets.value(s) for s in states]).numpy()  # (T, W)
        adv = gae(R, V, M, self.gamma, self.lam)
        ret = adv + V
        idx = np.argwhere(M)
        if len(idx) > self.max_train_samples:
            idx = idx[rng.choice(len(idx), self.max_train_samples, replace=False)]
        S = torch.stack(states)[idx[:, 0], idx[:, 1]]
        acts = [torch.stack([a[i] for a in actions])[idx[:, 0], idx[:, 1]] for i in range(len(nets.agents))]
        LP = torch.stack(logps)[idx[:, 0], idx[:, 1]]  # (n, n_agents)
        ADV = torch.from_numpy(adv[idx[:, 0], idx[:, 1]]).float()
        ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8)
        RET = torch.from_numpy(ret[idx[:, 0], idx[:, 1]]).float()
        huber = torch.nn.HuberLoss(delta=self.huber_delta)
        n = len(idx)
        for _ in range(self.epochs):
            perm = torch.from_numpy(rng.permutation(n))
            for b in range(0, n, self.minibatch):
                j = perm[b:b + self.minibatch]
                loss = huber(nets.value(S[j]), RET[j])  # centralized critic
                for i, logits in enumerate(nets.logits(S[j])):  # each actor, its own ratio, shared advantage
                    logp_all = torch.log_softmax(logits, -1)
                    lp = torch.gather(logp_all, 2, acts[i][j].unsqueeze(-1)).squeeze(-1).sum(-1)
                    ratio = torch.exp(lp - LP[j, i])
                    pg = -torch.min(ratio * ADV[j], torch.clamp(ratio, 1 - self.clip, 1 + self.clip) * ADV[j]).mean()
                    ent = -(logp_all.exp() * logp_all).sum(-1).sum(-1).mean()
                    loss = loss + pg - self.ent_coef * ent
                opt.zero_grad()
                loss.backward()
                opt.step()
