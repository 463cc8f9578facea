"""ds-sim compatibility: its XML inputs, its dispatching algorithms, an emulation of its server
for simulation, and a client for a live ds-sim server (docs/dssim.md)."""
