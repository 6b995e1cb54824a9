"""The loop's guarantee as one object: a config is measured at most once, and only when the space's
static constraints accept it. The ``Tuner`` and the MetaSchedule adapter
(``integrations/metaschedule_strategy.py``) both admit candidates through it."""

from __future__ import annotations

from collections.abc import Iterable

from tensortune.space import Config, SearchSpace


class MeasureGuard:
    def __init__(self, space: SearchSpace, measured: Iterable[int] = ()) -> None:
        self.space = space
        self.measured: set[int] = set(measured)

    def admit(self, configs: Iterable[Config], limit: int | None = None) -> list[Config]:
        """The configs of ``configs`` not measured before and valid, in order, at most ``limit``; they
        count as measured from now on."""
        out: list[Config] = []
        for c in configs:
            if limit is not None and len(out) >= limit:
                break
            i = self.space.index_of(c)
            if i not in self.measured and self.space.is_valid(c):
                self.measured.add(i)
                out.append(c)
        return out

    def mark(self, configs: Iterable[Config]) -> None:
        """Count ``configs`` as measured (measured elsewhere, e.g. in a database being resumed)."""
        self.measured.update(self.space.index_of(c) for c in configs)

    def seen(self, config: Config) -> bool:
        return self.space.index_of(config) in self.measured

    @property
    def exhausted(self) -> bool:
        return len(self.measured) >= self.space.size
