"""Hardware descriptions and their embeddings (Glimpse's Blueprints): spec tables of the targets a user
tunes for, and a PCA Blueprint of them."""

from tensortune.hardware.blueprint import Blueprint, information_loss
from tensortune.hardware.specs import CPU_TARGETS, GPUS, HardwareSpec, cpu_specs, gpu_specs, vta_specs

__all__ = ["CPU_TARGETS", "GPUS", "Blueprint", "HardwareSpec", "cpu_specs", "gpu_specs", "information_loss",
           "vta_specs"]
