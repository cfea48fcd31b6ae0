"""The heuristic family: learned heuristics over WL features (WL-GOOSE) in classical searches."""

# keys of a model entry that only plan with the model, never train it (the registry reads them from
# family.py; model.py and family.py both take them from here, so neither imports the other for them)
PLANNING_KEYS = ("search",)
# XGBoost reads the entries a sparse matrix does not store as missing values, not as zeros: trained on
# the sparse rows of `data: plans`, its trees would branch otherwise on the dense rows the search gives
XGB_FROM_PLANS = ("learner xgb cannot train with `train: {data: plans}` (its WL feature rows are sparse, and "
                  "XGBoost would read their zeros as missing values): use ridge, svr or rank")
