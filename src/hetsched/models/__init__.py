"""Pure performance models: speed (run times and estimates) and power."""
