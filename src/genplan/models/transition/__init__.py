"""The state-centric transition family: an LSTM (`lstm`) and XGBoost (`xgb`) over WL or FSF
embeddings, in state or delta mode; `train` trains one, `model` loads one for decoding."""

# keys of a model entry that only plan with the model, never train it (the registry reads them from
# family.py; model.py and family.py both take them from here, so neither imports the other for them)
PLANNING_KEYS = ("decode",)
