"""Floor 1: core values every layer may use (targets, the TVM runtime's thread pool)."""
