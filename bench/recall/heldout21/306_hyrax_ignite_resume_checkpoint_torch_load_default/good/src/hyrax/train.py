from pathlib import Path

import torch
from torch.utils.data import DataLoader, TensorDataset

from hyrax.models import HyraxAutoencoder
from hyrax.pytorch_ignite import create_trainer


def run(config: dict):
    results_dir = Path(config["general"]["results_dir"])
    results_dir.mkdir(parents=True, exist_ok=True)
    data = torch.randn(1024, 256)
    loader = DataLoader(TensorDataset(data, data), batch_size=config["train"]["batch_size"], shuffle=True)
    model = HyraxAutoencoder()
    trainer = create_trainer(model, config, results_dir)
    trainer.run(loader, max_epochs=config["train"]["epochs"])
    return model


if __name__ == "__main__":
    run({
        "general": {"results_dir": "results/train"},
        "train": {"resume": False, "batch_size": 64, "epochs": 5},
    })
