"""hetsched's version: written into every output file and store key, so it lives at the
bottom, importable by any layer."""

__version__ = "0.1.0"
