"""Command-line interface (``hetsched``)."""
