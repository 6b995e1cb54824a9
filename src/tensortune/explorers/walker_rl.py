"""The one core of the walker-based RL explorers (Chameleon's PPO, ARCO's MAPPO): a batch of walkers
moves through the knob space, each agent choosing decrement / stay / increment for each of its knobs;
the cost model's scores are the rewards; the agents learn with PPO (a clipped ratio per agent, GAE
advantages from the critic). What differs between the explorers is only the network (its agents and
critic), the reward, the value loss and whether walkers may cross configs over the space's budgets;
subclasses give those and nothing else.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from tensortune.explorers.base import ScoreFn
from tensortune.space import Config, SearchSpace


def start_points(space: SearchSpace, incumbents: list[Config], n_walkers: int, incumbent_share: float,
                 rng: np.random.Generator) -> np.ndarray:
    """Walker start points: up to ``incumbent_share`` of them at the best measured configs, the rest random."""
    n_inc = min(len(incumbents), int(n_walkers * incumbent_share))
    pts = [c.indices for c in incumbents[:n_inc]]
    pts += [c.indices for c in space.sample(n_walkers - len(pts), rng)]
    arr = np.array(pts, dtype=np.int64)
    if len(arr) < n_walkers:
        arr = arr[rng.integers(0, len(arr), size=n_walkers)]
    return arr


def ranked_candidates(space: SearchSpace, visited: dict[tuple[int, ...], float], exclude: set[Config],
                      n: int) -> list[tuple[Config, float]]:
    """The ``n`` best-scored visited configs that are unmeasured and within every constraint and budget."""
    excluded = {c.indices for c in exclude}
    keys = [k for k in visited if k not in excluded]
    if keys:
        ok = space.valid_mask(np.array(keys, dtype=np.int64))
        keys = [k for k, good in zip(keys, ok, strict=True) if good]
    ranked = sorted(keys, key=lambda k: -visited[k])
    return [(Config(k), visited[k]) for k in ranked[:n]]


def gae(R: np.ndarray, V: np.ndarray, M: np.ndarray, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates of (T, W) rewards R and values V; M marks walkers still alive."""
    T, W = R.shape
    adv = np.zeros_like(R)
    last = np.zeros(W)
    for t in reversed(range(T)):
        nxt_v = V[t + 1] if t + 1 < T else np.zeros(W)
        nonterm = M[t + 1] if t + 1 < T else np.zeros(W, dtype=bool)
        delta = R[t] + gamma * nxt_v * nonterm - V[t]
        last = delta + gamma * lam * nonterm * last
        adv[t] = last
    return adv


class WalkerRL:
    """Rollout, GAE and the PPO update, written once. Subclasses implement :meth:`_make_net` (a
    torch module with ``agents`` (knob positions per agent) and ``forward(s) -> (per-agent logits of
    shape (batch, its knobs, 3), values)``), :meth:`_rewards` and :meth:`_value_loss`."""

    walk_budgets = True  # walkers stay within the space's budgets (False: they may cross, paying a penalty)
    walk_validity = True  # walkers stay on valid configs (False: they walk anywhere; only valid ones are proposed)
    uses_penalty = False  # the reward needs the space's budget penalty of each visited config

    def __init__(self, *, n_walkers: int, max_steps: int, stuck_fraction: float, lr: float, epochs: int,
                 minibatch: int, gamma: float, lam: float, clip: float, ent_coef: float, max_train_samples: int,
                 incumbent_share: float, seed: int) -> None:
        self.n_walkers = n_walkers
        self.max_steps = max_steps
        self.stuck_fraction = stuck_fraction
        self.lr = lr
        self.epochs = epochs
        self.minibatch = minibatch
        self.gamma = gamma
        self.lam = lam
        self.clip = clip
        self.ent_coef = ent_coef
        self.max_train_samples = max_train_samples
        self.incumbent_share = incumbent_share
        self.seed = seed
        self.steps = 0  # search steps (walker batch moves) of the last round
        self.queries = 0  # configurations scored by the cost model in the last round
        self.rounds = 0
        self._net: Any = None
        self._opt: Any = None
        self._pending: tuple[bytes, dict[str, Any]] | None = None  # loaded state, applied once the space is known
        self._space: SearchSpace | None = None

    # ------------------------------------------------------------------ what subclasses give
    def _make_net(self, space: SearchSpace) -> Any:
        raise NotImplementedError

    def _net_fits(self, space: SearchSpace) -> bool:
        raise NotImplementedError

    def _rewards(self, scores: np.ndarray, penalties: np.ndarray | None, alive: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _value_loss(self, v: Any, ret: Any) -> Any:
        raise NotImplementedError

    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _load_extra_state(self, st: dict[str, Any]) -> None:
        pass

    # ------------------------------------------------------------------ agent and state
    def _ensure(self, space: SearchSpace) -> Any:
        import torch

        if self._net is None or not self._net_fits(space):
            self._net = self._make_net(space)
            self._opt = torch.optim.Adam(self._net.parameters(), lr=self.lr)
        self._space = space
        self._restore()
        return self._net

    def state_bytes(self) -> bytes | None:
        import torch

        if self._net is None:
            return self._pending[0] if self._pending else None
        buf = io.BytesIO()
        torch.save({"net": self._net.state_dict(), "opt": self._opt.state_dict(), "rounds": self.rounds,
                    **self._extra_state()}, buf)
        return buf.getvalue()

    def load_state_bytes(self, data: bytes, space: SearchSpace | None = None) -> None:
        """Restore an agent; its networks are rebuilt once the space is known (here or at the next round)."""
        import torch

        st = torch.load(io.BytesIO(data), weights_only=True)
        self.rounds = int(st["rounds"])
        self._load_extra_state(st)
        self._pending = (data, st)
        if space is not None:
            self._ensure(space)

    def _restore(self) -> None:
        import torch

        if self._pending is None:
            return
        _, st = self._pending
        self._pending = None
        try:
            self._net.load_state_dict(st.get("net", st.get("nets")))
            self._opt.load_state_dict(st["opt"])
        except (RuntimeError, KeyError, ValueError, TypeError) as e:  # an agent saved by another version
            import warnings

            warnings.warn(f"the saved agent does not fit this explorer ({type(e).__name__}); it starts afresh, "
                          "the stored measurements are kept", stacklevel=2)
            self._net = self._make_net(self._space)
            self._opt = torch.optim.Adam(self._net.parameters(), lr=self.lr)

    @staticmethod
    def _obs(space: SearchSpace, idx: np.ndarray) -> Any:
        import torch

        top = (space.radices - 1).clip(min=1).astype(np.float32)
        return torch.from_numpy(np.asarray(idx, dtype=np.float32) / top)

    def values(self, space: SearchSpace, idx: np.ndarray) -> np.ndarray:
        """The critic's value of each configuration (rows of option indices)."""
        import torch

        net = self._ensure(space)
        with torch.no_grad():
            return net.forward(self._obs(space, idx))[1].numpy().astype(np.float64)

    # ------------------------------------------------------------------ one round
    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config], rng: np.random.Generator,
                incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        import torch

        torch.set_num_threads(1)  # tiny networks: threads cost more than they give
        net = self._ensure(space)
        pos = start_points(space, list(incumbents or []), self.n_walkers, self.incumbent_share, rng)
        W = len(pos)
        visited: dict[tuple[int, ...], float] = {}
        for p, s in zip(pos, score(pos), strict=True):
            visited[tuple(int(v) for v in p)] = float(s)
        self.queries = W
        states, actions, logps, values, scores, penalties, alive_mask = [], [], [], [], [], [], []
        alive = np.ones(W, dtype=bool)
        gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
        step = 0
        for step in range(1, self.max_steps + 1):  # noqa: B007
            s = self._obs(space, pos)
            move = np.zeros_like(pos)
            acts, lps = [], []
            with torch.no_grad():
                logits_all, v = net.forward(s)
                for agent, logits in zip(net.agents, logits_all, strict=True):  # each agent its own knobs
                    probs = torch.softmax(logits, -1)
                    a = torch.multinomial(probs.reshape(-1, 3), 1, generator=gen).view(W, -1)
                    lps.append(torch.log(torch.gather(probs, 2, a.unsqueeze(-1)).squeeze(-1) + 1e-12).sum(-1))
                    acts.append(a)
                    move[:, agent] = a.numpy() - 1
            new = np.clip(pos + move, 0, space.radices - 1)
            if self.walk_validity:  # a move into an invalid config is refused (and counts as stuck)
                new = np.where(space.valid_mask(new, budgets=self.walk_budgets)[:, None], new, pos)
            stuck = (new == pos).sum(axis=1) >= self.stuck_fraction * len(space.knobs)
            sc = score(new)
            self.queries += int(alive.sum())
            states.append(s)
            actions.append(acts)
            logps.append(torch.stack(lps, 1))  # (W, agents)
            values.append(v)
            scores.append(sc)
            if self.uses_penalty:
                penalties.append(space.penalty(new))
            alive_mask.append(alive.copy())
            for p, val, al in zip(new, sc, alive, strict=True):
                if al:
                    visited.setdefault(tuple(int(x) for x in p), float(val))
            pos = np.where(alive[:, None], new, pos)
            alive &= ~stuck
            if not alive.any():
                break
        self.steps = step
        M = np.array(alive_mask, dtype=bool)
        R = self._rewards(np.array(scores, dtype=np.float64),
                          np.array(penalties, dtype=np.float64) if self.uses_penalty else None, M)
        self._update(states, actions, logps, torch.stack(values).numpy(), R, M, rng)
        self.rounds += 1
        return ranked_candidates(space, visited, exclude, n)

    def _update(self, states: list[Any], actions: list[list[Any]], logps: list[Any], V: np.ndarray, R: np.ndarray,
                M: np.ndarray, rng: np.random.Generator) -> None:
        """PPO on the round's walks: GAE advantages (normalised), a clipped ratio per agent, the
        critic's loss, an entropy bonus; ``epochs`` passes over minibatches of the alive steps."""
        import torch

        net, opt = self._net, self._opt
        adv = gae(R, V, M, self.gamma, self.lam)
        ret = adv + V
        idx = np.argwhere(M)
        if len(idx) > self.max_train_samples:
            idx = idx[rng.choice(len(idx), self.max_train_samples, replace=False)]
        S = torch.stack(states)[idx[:, 0], idx[:, 1]]
        acts = [torch.stack([a[i] for a in actions])[idx[:, 0], idx[:, 1]] for i in range(len(net.agents))]
        LP = torch.stack(logps)[idx[:, 0], idx[:, 1]]  # (n, agents)
        ADV = torch.from_numpy(adv[idx[:, 0], idx[:, 1]]).float()
        ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8) if len(ADV) > 1 else ADV * 0.0  # one step: no signal
        RET = torch.from_numpy(ret[idx[:, 0], idx[:, 1]]).float()
        n = len(idx)
        for _ in range(self.epochs):
            perm = torch.from_numpy(rng.permutation(n))
            for b in range(0, n, self.minibatch):
                j = perm[b:b + self.minibatch]
                logits_all, v = net.forward(S[j])
                loss = self._value_loss(v, RET[j])
                for i, logits in enumerate(logits_all):
                    logp_all = torch.log_softmax(logits, -1)
                    lp = torch.gather(logp_all, 2, acts[i][j].unsqueeze(-1)).squeeze(-1).sum(-1)
                    ratio = torch.exp(lp - LP[j, i])
                    pg = -torch.min(ratio * ADV[j], torch.clamp(ratio, 1 - self.clip, 1 + self.clip) * ADV[j]).mean()
                    ent = -(logp_all.exp() * logp_all).sum(-1).sum(-1).mean()
                    loss = loss + pg - self.ent_coef * ent
                opt.zero_grad()
                loss.backward()
                opt.step()
