"""hetsched: simulate, compare and tune job schedulers on heterogeneous clusters."""

__version__ = "0.1.0"
