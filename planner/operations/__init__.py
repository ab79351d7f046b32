"""Person-hours, cost and the simulated labelling operation (simpy)."""
