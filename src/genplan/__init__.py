"""genplan: a reproducible pipeline for learning to plan from PDDL."""

__version__ = "0.1.0"
