"""One run, below every way of asking for one (the command line, :func:`hetsched.simulate`,
sweeps, reports, studies): its options, its inputs, and the checks of both."""
