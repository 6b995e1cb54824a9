"""Search strategies: ask/tell state machines under the one tuning loop (``tuners/loop.py``). The
model-based ones share one round skeleton (``rounds.py``)."""

from tensortune.strategies.base import Round, SearchStrategy

__all__ = ["Round", "SearchStrategy"]
