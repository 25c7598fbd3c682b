import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler

from estimator import Estimator
from models import ResNet
from data import load_split


def fit_estimator(train_data, test_data, model_parameters, settings):
    estimator = Estimator(ResNet, model_parameters, settings)
    train_loader = DataLoader(train_data, batch_size=None,
                              sampler=BatchSampler(RandomSampler(train_data), batch_size=settings["batch_size"],
                                                   drop_last=True))
    test_loader = DataLoader(test_data, batch_size=None,
                             sampler=BatchSampler(SequentialSampler(test_data), batch_size=settings["batch_size"],
                                                  drop_last=False))
    estimator.fit(train_loader, test_loader)
    return estimator, estimator.predict_proba(test_loader)


if __name__ == "__main__":
    settings = {"seed": 42, "device": "cuda" if torch.cuda.is_available() else "cpu",
                "optimizer": torch.optim.AdamW, "criterion": torch.nn.BCEWithLogitsLoss,
                "epochs": 10, "lr": 3e-4, "batch_size": 1024}
    params = {"num_features": 5000, "size_embedding": 256, "size_hidden": 256, "num_layers": 2,
              "hidden_factor": 1, "residual_dropout": 0.1, "hidden_dropout": 0.1}
    train_data = load_split("train")
    test_data = load_split("test")
    fit_estimator(train_data, test_data, params, settings)
