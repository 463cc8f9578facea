"""One run, below every way of asking for one (the command line, :func:`hetsched.simulate`,
sweeps, reports, studies): its options (:mod:`~hetsched.run.options`: ``RunOptions``), its inputs
(:mod:`~hetsched.run.inputs`), the checks of both (:mod:`~hetsched.run.checks`), and the one
function that loads and simulates (:mod:`~hetsched.run.execute`: ``run_simulation``). Each is
imported from its module, so that the command line can read the options without the engine."""
