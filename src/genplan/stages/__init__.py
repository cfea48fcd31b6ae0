"""Data stages 1-4 and the statistics: problems, Fast Downward plans, VAL trajectories, state spaces."""
