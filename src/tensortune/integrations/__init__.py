"""Adapters to other tuning frameworks: our strategies inside TVM MetaSchedule, and MetaSchedule's
CPU build function for the comparisons."""
