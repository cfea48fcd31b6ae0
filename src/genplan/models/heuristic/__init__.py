"""The heuristic family: learned heuristics over WL features (WL-GOOSE) in classical searches."""
