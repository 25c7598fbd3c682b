import os

import pandas as pd
import torch
from torch.nn import Module


def save_results(db: str, tag: str, results: pd.DataFrame, archive: str, model: Module) -> None:
    db_name = os.path.basename(db).split(".")[0]
    path = os.path.join(archive, db_name, tag)
    os.makedirs(path, exist_ok=True)
    results.to_csv(os.path.join(path, "results.csv"))
    torch.save(model.cpu().state_dict(), os.path.join(path, tag + ".pth"))
    print("Model saved to", path)


def load_model(build_model, path: str) -> Module:
    model = build_model()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model
