"""Probes of the incumbent: for each knob, the best-scored unmeasured config that differs from the best
measured one in that knob alone.

Why (issue 19, transfer learning): a task's first rounds rank with a model fitted mostly on other tasks' records,
and where the sources agree on a knob the model never proposes the other values of it, however the task's own
outcomes turn out. Zen 5's held-out L1 (AlexNet's 11x11/4 stem) stalled at 0.886 of its optimum for 17-42
measurements after the first design, while the config one knob away (``tile_rc`` (3, 1) instead of the (1, 3) the
corpus's stem prefers in 9 of its 12 best configs) runs at 0.955 (stop 86, ``results/transfer/znver5-s86``). A
probe per knob tries each knob's best alternative once here, at the incumbent, where the task's own outcome
decides it. The model still orders the probes (and picks each knob's alternative), and the strategy puts them
after its own first picks (``ModelBasedStrategy.probe_lead``), so a model that already knows the region loses
little.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np

from tensortune.space import Config, SearchSpace

ScoreFn = Callable[[np.ndarray], np.ndarray]


def incumbent_probes(space: SearchSpace, incumbent: Config, score: ScoreFn, exclude: Collection[Config],
                     limit: int) -> list[Config]:
    """At most ``limit`` configs, best-scored first: for each knob, the valid config outside ``exclude`` that
    takes the incumbent's values on every other knob and has the highest ``score`` (a function of index rows,
    as ``ModelBasedStrategy.score``) among such configs. A knob with no such config gives none."""
    if limit < 1:
        return []
    per_knob: list[tuple[float, int, Config]] = []
    base = incumbent.indices
    for pos, radix in enumerate(space.radices):
        alts = [Config(base[:pos] + (v,) + base[pos + 1:]) for v in range(int(radix)) if v != base[pos]]
        alts = [c for c in alts if c not in exclude and space.is_valid(c)]
        if not alts:
            continue
        s = np.asarray(score(space.indices(alts)), dtype=np.float64)
        j = int(np.argmax(s))
        per_knob.append((float(s[j]), pos, alts[j]))
    per_knob.sort(key=lambda t: (-t[0], t[1]))  # best-scored first; ties in knob order
    return [c for _, _, c in per_knob[:limit]]
