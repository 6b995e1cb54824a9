"""Command-line interface (thin layer over the public API)."""
