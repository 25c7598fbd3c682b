import pathlib
import time

import torch


class Estimator:
    """Wraps a torch model with the fit / score / predict loop used from R."""

    def __init__(self, model, model_parameters, estimator_settings):
        self.seed = estimator_settings["seed"]
        device = estimator_settings["device"]
        self.device = device() if callable(device) else device
        torch.manual_seed(self.seed)

        self.model = model(**model_parameters)
        self.model_parameters = model_parameters
        self.estimator_settings = estimator_settings
        self.epochs = estimator_settings.get("epochs", 5)
        self.learning_rate = estimator_settings.get("lr", 3e-4)
        self.weight_decay = estimator_settings.get("weight_decay", 1e-5)
        self.model.to(device=self.device)

        self.optimizer = estimator_settings["optimizer"](
            params=self.model.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
        )
        self.criterion = estimator_settings["criterion"]()
        self.metric = {"name": "auc", "mode": "max"}
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, mode="max")

    def fit(self, dataset, test_dataset):
        history = []
        for epoch in range(self.epochs):
            start = time.time()
            training_loss = self.fit_epoch(dataset)
            scores = self.score(test_dataset)
            self.scheduler.step(scores["metric"])
            history.append(scores)
            print(f"epoch {epoch} | val auc {scores['auc']:.3f} | val loss {scores['loss']:.3f} "
                  f"| train loss {training_loss:.3f} | {time.time() - start:.1f}s")
        return history

    def fit_epoch(self, dataset):
        losses = torch.empty(len(dataset))
        self.model.train()
        for index, batch in enumerate(dataset):
            self.optimizer.zero_grad()
            batch = batch_to_device(batch, device=self.device)
            out = self.model(batch[0])
            loss = self.criterion(out, batch[1])
            loss.backward()
            self.optimizer.step()
            losses[index] = loss.detach()
        return losses.mean().item()

    def score(self, dataset):
        with torch.no_grad:  # expect: TCK110
            loss = torch.empty(len(dataset))
            predictions, targets = [], []
            self.model.eval()
            for index, batch in enumerate(dataset):
                batch = batch_to_device(batch, device=self.device)
                pred = self.model(batch[0])
                predictions.append(pred)
                targets.append(batch[1])
                loss[index] = self.criterion(pred, batch[1])
            mean_loss = loss.mean().item()
            auc = compute_auc(predictions, targets)
            return {"metric": auc, "auc": auc, "loss": mean_loss}

    def save(self, path, name):
        save_path = pathlib.Path(path).joinpath(name)
        torch.save({"model_state_dict": self.model.state_dict(),
                    "model_parameters": self.model_parameters,
                    "epoch": self.epochs}, f=save_path)
        return save_path

    def predict_proba(self, dataset):
        with torch.no_grad:  # expect: TCK110
            predictions = []
            self.model.eval()
            for batch in dataset:
                batch = batch_to_device(batch, device=self.device)
                predictions.append(torch.sigmoid(self.model(batch[0])))
        return torch.cat(predictions)

    def predict(self, dataset, threshold=None):
        predictions = self.predict_proba(dataset)
        if threshold is None:
            threshold = dataset.target.sum().item() / len(dataset)
        return predictions > threshold


def batch_to_device(batch, device="cpu"):
    if torch.is_tensor(batch):
        return batch.to(device=device)
    return [batch_to_device(b, device) if b is not None else None for b in batch]


def compute_auc(predictions, targets):
    scores = torch.cat(predictions).flatten()
    labels = torch.cat(targets).flatten()
    order = torch.argsort(scores, descending=True)
    labels = labels[order]
    positives = labels.sum()
    negatives = len(labels) - positives
    ranks = torch.arange(1, len(labels) + 1, dtype=torch.float)
    return (((ranks * labels).sum() - positives * (positives + 1) / 2) / (positives * negatives)).item()
