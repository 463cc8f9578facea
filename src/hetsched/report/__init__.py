"""Figures (matplotlib, an optional extra: ``pip install 'hetsched[plot]'``)."""
