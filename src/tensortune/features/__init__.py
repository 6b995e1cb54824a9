"""Features a compile step reveals (ML2Tuner's hidden features)."""

from tensortune.features.hidden import HiddenFeatures

__all__ = ["HiddenFeatures"]
