"""Planners: the planner interface, named strategies, and each family's search."""
