"""Analytical models of accelerators that no installable simulator covers (VTA-like GEMM cores)."""
