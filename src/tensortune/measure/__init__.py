"""Measurers: isolated build/run workers, TVM local and RPC, the accelerator model, replay."""
