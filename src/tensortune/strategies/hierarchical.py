"""Hierarchical hardware/software co-design: ARCO's hardware agent over designs, per-layer schedules inside.

Why: in a whole-model co-design space one design is shared by every layer, so a move of a hardware knob
(a wider GEMM, a smaller buffer) breaks the tiling or the buffer fit of several layers at once. Agents
that move one knob step at a time over the joint space almost never find a runnable neighbour of a
runnable configuration (``bench/vta_arco.py`` measured 100% invalid proposals for flat ``arco``). Once
the design is fixed, though, the layers are independent: the model's time is the sum of each layer's
time under its own schedule. This strategy uses that structure, as the exhaustive optimum does
(``accel/exhaustive.py``), but with learned models instead of the simulator:

- **Per-layer models.** Every whole-model measurement comes with a per-layer profile
  (``MeasureResult.extra["layer_seconds"]``: each layer's share of the time, or none where it cannot
  run). Per layer, an XGBoost classifier learns validity and an XGBoost regressor learns log time from
  (design knobs, that layer's schedule knobs). One measurement thus teaches every layer's models.
- **Inner level.** For a design, each layer's schedule grid (its knobs' product, a few thousand at most)
  is filtered by the layer's structural constraints on that design and ranked: schedules predicted
  valid by predicted time, then the rest by validity probability. The design's predicted model time is
  the sum of each layer's best prediction.
- **Outer level.** ARCO's hardware agent (``MAPPOExplorer`` on the design knobs alone, with the
  budgets' penalty) walks designs scored by that predicted time; ARCO's confidence sampling picks the
  designs to try.
- **Per-layer tuning in parallel.** A chosen design gets ``inner_trials`` measurements; the k-th runs
  every layer on its k-th ranked schedule, so one measurement is a schedule trial for every layer at
  once, and the profile says which layers ran and how fast. Whenever every layer has a measured
  runnable schedule on some design and their combination is faster than the best measured model, that
  combination is measured next (it runs by construction: on a fixed design the layers are independent).

Until ``plan_size`` outcomes exist, configurations are random (as in AutoTVM). A space needs hardware
knobs (``Knob.hardware``); per-layer knobs are named ``L<i>.<knob>`` (a single-layer space has no
prefix, and its profile is the total time), and every non-budget constraint must declare the knobs it
reads (``Constraint.knobs``) so that it can be assigned to a layer.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import xgboost as xgb

from tensortune.cost_models.xgb import dmatrix
from tensortune.explorers.mappo import MAPPOExplorer
from tensortune.samplers.confidence import ConfidenceSampler
from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import Round
from tensortune.strategies.rounds import Candidates, RoundStrategy

_XGB = {"max_depth": 4, "eta": 0.3, "gamma": 1e-4, "min_child_weight": 1, "verbosity": 0, "nthread": 1}


class _Layer:
    """One layer's part of the space: its knob positions, schedule grid, constraints and models."""

    def __init__(self, space: SearchSpace, prefix: str, hw_names: set[str]) -> None:
        self.prefix = prefix
        self.pos = [i for i, k in enumerate(space.knobs) if not k.hardware and k.name.startswith(prefix)
                    and (prefix or "." not in k.name)]
        self.names = [space.knobs[i].name for i in self.pos]
        mine = set(self.names)
        self.constraints = []
        for c in space.constraints:
            if c.budget:
                continue
            if not c.knobs:
                raise ValueError(f"hierarchical co-design needs constraints that declare their knobs; {c.name!r} does not")
            reads = set(c.knobs)
            if reads & mine:
                if not reads <= mine | hw_names:
                    raise ValueError(f"constraint {c.name!r} couples layers; the layers cannot be tuned separately")
                if c.vectorized is None:
                    raise ValueError(f"constraint {c.name!r} has no vectorised form")
                self.constraints.append(c)
        radices = [len(space.knobs[i]) for i in self.pos]
        self.grid = np.array(list(itertools.product(*[range(r) for r in radices])), dtype=np.int64)
        if len(self.grid) > 200_000:
            raise ValueError(f"layer {prefix or '(single)'} has {len(self.grid)} schedules; the inner level "
                             "enumerates them and needs at most 200,000")
        self.values = {n: np.array(space.knobs[i].options, dtype=np.float64)[self.grid[:, j]]
                       for j, (n, i) in enumerate(zip(self.names, self.pos, strict=True))}
        self.features = np.log2(np.maximum(np.column_stack([self.values[n] for n in self.names]), 1e-9))
        self.valid_model: xgb.Booster | None = None
        self.always_valid = True
        self.time_model: xgb.Booster | None = None


class HierarchicalCodesign(RoundStrategy):
    def __init__(self, space: SearchSpace, seed: int = 0, plan_size: int = 32, n_candidates: int | None = None,
                 num_rounds: int = 60, inner_trials: int = 4, explorer: MAPPOExplorer | None = None) -> None:
        super().__init__(space, seed)
        hw = [i for i, k in enumerate(space.knobs) if k.hardware]
        if not hw:
            raise ValueError("hierarchical co-design tunes hardware and software together; this space has no "
                             "hardware knobs (use a co-design template, e.g. --codesign model)")
        if not space._numeric:
            raise ValueError("hierarchical co-design needs numeric knob options")
        self.hw_pos = hw
        self.hw_names = [space.knobs[i].name for i in hw]
        budget = [c for c in space.constraints if c.budget]
        for c in budget:
            if c.vectorized is None or (c.knobs and not set(c.knobs) <= set(self.hw_names)):
                raise ValueError(f"budget {c.name!r} must be vectorised and read hardware knobs only")
        self.design_space = SearchSpace([space.knobs[i] for i in hw], budget, penalty=space.penalty_fn)
        prefixes = list(dict.fromkeys(k.name.split(".", 1)[0] + "." for k in space.knobs
                                      if not k.hardware and "." in k.name))
        flat = [k for k in space.knobs if not k.hardware and "." not in k.name]
        if prefixes and flat:
            raise ValueError("mixed per-layer (L<i>.) and unprefixed software knobs")
        self.layers = [_Layer(space, p, set(self.hw_names)) for p in (prefixes or [""])]
        covered = sorted(self.hw_pos + [i for lay in self.layers for i in lay.pos])
        if covered != list(range(len(space.knobs))):
            raise ValueError("every knob must be a hardware knob or belong to exactly one layer")
        self.plan_size = plan_size
        self.n_candidates = n_candidates or 8 * plan_size
        self.num_rounds = num_rounds
        if inner_trials < 1:
            raise ValueError("inner_trials must be >= 1")
        self.inner_trials = inner_trials
        # per design: each layer's fastest measured runnable schedule (seconds, its knob indices)
        self._layer_best: dict[tuple[int, ...], list[tuple[float, tuple[int, ...]] | None]] = {}
        self.assembled = 0  # combinations of per-layer bests proposed
        # the design space is small (thousands of designs), so fewer walkers than ARCO's 128 suffice
        self.explorer = explorer or MAPPOExplorer(n_walkers=32, seed=seed)
        self.sampler = ConfidenceSampler(self.explorer.values)
        self.name = "arco-hier"
        self._layer_secs: list[list[float | None]] = []  # per outcome, per layer
        self._pending_extra: dict[Config, dict[str, Any]] = {}
        self._memo: dict[tuple[int, ...], tuple[float, list[np.ndarray]]] = {}

    # ------------------------------------------------------------------ outcomes
    def tell_extra(self, configs: list[Config], extras: list[dict[str, Any]]) -> None:
        for c, e in zip(configs, extras, strict=True):
            self._pending_extra[c] = e

    def tell(self, configs: list[Config], throughputs: list[float]) -> None:
        for c, y in zip(configs, throughputs, strict=True):
            e = self._pending_extra.pop(c, {})
            if len(self.layers) == 1:
                self._layer_secs.append([1.0 / y if y > 0 else None])  # time up to the constant FLOP count
            elif "layer_seconds" in e:
                if len(e["layer_seconds"]) != len(self.layers):
                    raise ValueError(f"the measurer profiled {len(e['layer_seconds'])} layers; the space has "
                                     f"{len(self.layers)}")
                self._layer_secs.append([None if s is None else float(s) for s in e["layer_seconds"]])
            else:
                raise ValueError("hierarchical co-design of several layers needs per-layer times from the measurer "
                                 "(MeasureResult.extra['layer_seconds']), as the vta-sim measurer reports them")
            design = tuple(c.indices[p] for p in self.hw_pos)
            best = self._layer_best.setdefault(design, [None] * len(self.layers))
            for li, (lay, sec) in enumerate(zip(self.layers, self._layer_secs[-1], strict=True)):
                if sec is not None and (best[li] is None or sec < best[li][0]):  # type: ignore[index]
                    best[li] = (sec, tuple(c.indices[p] for p in lay.pos))
        super().tell(configs, throughputs)
        if not self._plan and len(self.xs) >= self.plan_size:
            self.replan()

    # ------------------------------------------------------------------ models
    def _design_features(self, rows: np.ndarray) -> np.ndarray:
        vals = self.design_space.value_arrays(rows)
        return np.log2(np.maximum(np.column_stack([vals[n] for n in self.hw_names]), 1e-9))

    def _fit(self) -> None:
        idx = self.space.indices(self.xs)
        dfeat = self._design_features(idx[:, self.hw_pos])
        vals = self.space.value_arrays(idx)
        for li, lay in enumerate(self.layers):
            secs = [s[li] for s in self._layer_secs]
            valid = np.array([s is not None for s in secs])
            lfeat = np.log2(np.maximum(np.column_stack([vals[n] for n in lay.names]), 1e-9))
            x = np.hstack([dfeat, lfeat]).astype(np.float32)
            lay.always_valid = bool(valid.all())
            lay.valid_model = None
            if valid.any() and not valid.all():
                d = dmatrix(x, int(_XGB["nthread"]), label=valid.astype(np.float32))
                lay.valid_model = xgb.train({**_XGB, "objective": "binary:logistic", "seed": self.seed}, d,
                                            num_boost_round=self.num_rounds)
            lay.time_model = None
            if valid.sum() >= 2:
                t = np.log(np.array([s for s in secs if s is not None], dtype=np.float64))
                d = dmatrix(x[valid], int(_XGB["nthread"]), label=t)
                lay.time_model = xgb.train({**_XGB, "objective": "reg:squarederror", "seed": self.seed}, d,
                                           num_boost_round=self.num_rounds)
        self._memo.clear()

    def _inner(self, design_rows: np.ndarray) -> None:
        """Fill the memo for designs not yet scored: predicted model time and each layer's ranked
        schedules (grid row indices, best first). The design's score is its predicted time divided by the
        probability that every layer's first choice runs: an expected cost that lets designs whose
        layers are likely to run win over fast-looking designs that are not."""
        todo = [r for r in {tuple(int(v) for v in row) for row in design_rows} if r not in self._memo]
        if not todo:
            return
        rows = np.array(todo, dtype=np.int64)
        dvals = self.design_space.value_arrays(rows)
        dfeat = self._design_features(rows)
        totals = np.zeros(len(rows))
        p_run = np.ones(len(rows))  # probability that every layer has a runnable schedule
        ranked: list[list[np.ndarray]] = [[] for _ in rows]
        for lay in self.layers:
            vals = {**{k: v[:, None] for k, v in dvals.items()}, **{k: v[None, :] for k, v in lay.values.items()}}
            ok = np.ones((len(rows), len(lay.grid)), dtype=bool)
            for c in lay.constraints:
                ok &= np.asarray(c.vectorized(vals), dtype=bool)  # type: ignore[misc]
            dj, gj = np.nonzero(ok)  # row-major: grouped by design
            x = np.hstack([dfeat[dj], lay.features[gj]]).astype(np.float32)
            p_all = lay.valid_model.inplace_predict(x) if lay.valid_model is not None else np.full(
                len(x), 1.0 if lay.always_valid else 0.0)
            t_all = self.rng.random(len(x))
            if lay.time_model is not None:  # times only where a schedule is predicted to run
                likely = p_all >= 0.5
                if likely.any():
                    t_all[likely] = lay.time_model.inplace_predict(x[likely])
            bounds = np.searchsorted(dj, np.arange(len(rows) + 1))
            for j in range(len(rows)):
                a, b = bounds[j], bounds[j + 1]
                cand, p_valid, t = gj[a:b], p_all[a:b], t_all[a:b]
                good = p_valid >= 0.5
                rest = np.flatnonzero(~good)
                # ties (e.g. no runnable schedule seen yet, so p = 0 everywhere) in random order
                noise = self.rng.random(len(rest))
                order = np.concatenate([np.flatnonzero(good)[np.argsort(t[good], kind="stable")],
                                        rest[np.lexsort((noise, -p_valid[rest]))]]).astype(np.int64)
                ranked[j].append(cand[order])
                if len(cand) == 0:
                    p_run[j] = 0.0
                    continue
                # the layer's first choice: its predicted time (where a time model exists) and the chance
                # it runs, floored so that designs nobody can predict yet still differ by their times
                p_run[j] *= max(float(p_valid[order[0]]), 0.02)
                if lay.time_model is not None:
                    totals[j] += float(np.exp(lay.time_model.inplace_predict(x[a + order[:1]])[0]))
        for r, tot, pr, rk in zip(todo, totals, p_run, ranked, strict=True):
            self._memo[r] = (float(tot) / pr if pr > 0 else np.inf, rk)

    def _score(self, design_rows: np.ndarray) -> np.ndarray:
        self._inner(design_rows)
        t = np.array([self._memo[tuple(int(v) for v in row)][0] for row in design_rows])
        ok = np.isfinite(t) & (t > 0)
        if not ok.any():  # no time model yet: all designs alike
            return np.zeros(len(t))
        ref = float(t[ok].min())
        return np.where(ok, ref / np.where(ok, t, 1.0), 0.0)

    def _join(self, design: tuple[int, ...], schedules: list[Any]) -> Config:
        """The full config of a design and one schedule (option indices) per layer."""
        out = [0] * len(self.space.knobs)
        for p, v in zip(self.hw_pos, design, strict=True):
            out[p] = int(v)
        for lay, sched in zip(self.layers, schedules, strict=True):
            for p, v in zip(lay.pos, sched, strict=True):
                out[p] = int(v)
        return Config(tuple(out))

    def _compose(self, design: tuple[int, ...], choice: list[int]) -> Config | None:
        """Full config from a design and, per layer, the rank of its schedule in the memo."""
        ranked = self._memo[design][1]
        if any(c >= len(rk) for rk, c in zip(ranked, choice, strict=True)):
            return None
        cfg = self._join(design, [lay.grid[rk[c]] for lay, rk, c in zip(self.layers, ranked, choice, strict=True)])
        return cfg if self.space.is_valid(cfg) else None

    # ------------------------------------------------------------------ rounds
    def refit(self, rnd: Round) -> bool:
        self._fit()
        return True

    def propose(self, rnd: Round) -> Candidates:
        """Designs, scored by the per-layer models' expected model time."""
        order = np.argsort(-np.array(self.ys), kind="stable")
        inc = [Config(tuple(self.xs[i].indices[p] for p in self.hw_pos)) for i in order[: self.plan_size]
               if self.ys[i] > 0]
        cands = self.explorer.propose(self.design_space, self._score, self.n_candidates, set(), self.rng,
                                      incumbents=list(dict.fromkeys(inc)))
        rnd.steps, rnd.queries = self.explorer.steps, self.explorer.queries
        return cands

    def sample(self, cands: Candidates, rnd: Round) -> list[Config]:
        """Confidence-sampled designs, each with its layers' best predicted schedules."""
        n_designs = max(1, self.plan_size // self.inner_trials)
        designs = self.sampler.select(cands, n_designs, self.design_space, set(), self.rng)
        # the sampled designs first, then the best other candidates, until the plan is full
        ranked = [c.indices for c in designs] + [c.indices for c, _ in cands]
        ranked = [d for d in dict.fromkeys(ranked) if d in self._memo]
        plan: list[Config] = []
        seen = set(self.visited)
        for d in ranked:
            if len(plan) >= self.plan_size:
                break
            for k in range(self.inner_trials):
                cfg = self._compose(d, [k] * len(self.layers))
                if cfg is not None and cfg not in seen:
                    plan.append(cfg)
                    seen.add(cfg)
        return plan

    def _assemblies(self) -> list[Config]:
        """Unmeasured combinations of per-layer bests that beat the best measured model, fastest first."""
        out = []
        for design, per_layer in self._layer_best.items():
            if any(b is None for b in per_layer):
                continue
            cfg = self._join(design, [b[1] for b in per_layer])  # type: ignore[index]
            if cfg in self.visited or not self.space.is_valid(cfg):
                continue
            total = sum(b[0] for b in per_layer)  # type: ignore[index]
            out.append((total, cfg))
        out.sort(key=lambda tc: tc[0])
        # compare in seconds: the best measured model's time is the sum of its layers' times
        best_secs = min((sum(s) for s in self._layer_secs if all(x is not None for x in s)), default=np.inf)  # type: ignore[arg-type]
        return [c for t, c in out if t < best_secs]

    def ask(self, n: int) -> list[Config]:
        out: list[Config] = self._assemblies()[:n]
        self.assembled += len(out)
        return self.plan_then_random(self._plan, n, out)
