"""Explorer registry with lazy imports: name -> "module:Class". A new explorer is a file plus a line here."""

from __future__ import annotations

import importlib
from typing import Any

from tensortune.explorers.base import Explorer

EXPLORERS: dict[str, str] = {
    "sa": "tensortune.explorers.simulated_annealing:SimulatedAnnealing",  # AutoTVM
    "ppo": "tensortune.explorers.ppo:PPOExplorer",  # Chameleon / ReLeASE
    "mappo": "tensortune.explorers.mappo:MAPPOExplorer",  # ARCO
}
SEEDED = {"ppo", "mappo"}  # explorers whose constructor takes the run's seed (networks)


def explorer_names() -> list[str]:
    return sorted(EXPLORERS)


def make_explorer(name: str, seed: int = 0, **options: Any) -> Explorer:
    if name not in EXPLORERS:
        raise ValueError(f"unknown explorer {name!r}; known: {', '.join(explorer_names())}")
    mod, cls = EXPLORERS[name].split(":")
    kw = {"seed": seed, **options} if name in SEEDED else options
    return getattr(importlib.import_module(mod), cls)(**kw)  # type: ignore[no-any-return]
