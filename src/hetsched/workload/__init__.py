"""Workloads: jobs (optionally with DAG parents) and their file loaders."""

from hetsched.workload.model import SPREAD, Job, Workload

__all__ = ["SPREAD", "Job", "Workload"]
