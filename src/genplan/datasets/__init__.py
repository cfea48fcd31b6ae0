"""Training examples: from VAL trajectories (transition models) and from full state spaces."""
