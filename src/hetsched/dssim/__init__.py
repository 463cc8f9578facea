"""ds-sim compatibility: its XML inputs, its dispatching algorithms, the scheduler that runs
them on the engine (with the rules of ds-sim's server that are not the engine's), and a
client for a live ds-sim server (docs/dssim.md)."""
