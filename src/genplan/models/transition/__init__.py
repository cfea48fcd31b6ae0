"""The state-centric transition family: an LSTM (`lstm`) and XGBoost (`xgb`) over WL or FSF
embeddings, in state or delta mode; `train` trains one, `model` loads one for decoding."""
