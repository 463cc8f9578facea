"""Comparisons of runs (``compare``: pure, no drawing), figures of a run and of many runs, and
the HTML report of a results store. Drawing needs matplotlib, an optional extra
(``pip install 'hetsched[plot]'``), imported on first use. See docs/figures.md."""
