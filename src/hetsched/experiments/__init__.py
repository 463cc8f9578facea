"""Reproducible studies: each builds its platforms and workloads from seeds and runs a fixed
set of schedulers (see docs/experiments.md)."""
