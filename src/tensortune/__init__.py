"""tensortune: an autotuner for deep-learning operators on Apache TVM."""

__version__ = "0.1.0"
