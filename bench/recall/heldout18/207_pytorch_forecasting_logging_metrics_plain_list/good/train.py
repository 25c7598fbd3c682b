import torch
from lightning.pytorch import Trainer
from torch.utils.data import DataLoader, TensorDataset
from torchmetrics import MeanAbsoluteError, SymmetricMeanAbsolutePercentageError

from dlinear import DLinear


class DictWindows(TensorDataset):
    def __getitem__(self, index):
        x, y = super().__getitem__(index)
        return {"encoder_cont": x}, y


def main():
    series = torch.randn(2000, 7).cumsum(dim=0)
    ctx, horizon = 96, 24
    xs = torch.stack([series[i : i + ctx] for i in range(len(series) - ctx - horizon)])
    ys = torch.stack([series[i + ctx : i + ctx + horizon] for i in range(len(series) - ctx - horizon)])
    n_train = int(0.8 * len(xs))
    train_loader = DataLoader(DictWindows(xs[:n_train], ys[:n_train]), batch_size=64, shuffle=True)
    val_loader = DataLoader(DictWindows(xs[n_train:], ys[n_train:]), batch_size=64)

    model = DLinear(
        context_length=ctx,
        prediction_length=horizon,
        n_channels=7,
        loss=torch.nn.L1Loss(),
        logging_metrics=[SymmetricMeanAbsolutePercentageError(), MeanAbsoluteError()],
    )
    trainer = Trainer(max_epochs=20, accelerator="gpu", devices=1)
    trainer.fit(model, train_loader, val_loader)


if __name__ == "__main__":
    main()
