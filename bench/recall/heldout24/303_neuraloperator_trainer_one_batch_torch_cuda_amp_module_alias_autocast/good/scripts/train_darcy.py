"""Train an FNO on Darcy flow with the generic Trainer."""
import argparse

import torch

from neuralop.data.datasets import load_darcy_flow_small
from neuralop.losses import H1Loss, LpLoss
from neuralop.models import FNO
from neuralop.training.trainer import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_epochs", type=int, default=300)
    parser.add_argument("--lr", type=float, default=5e-3)
    parser.add_argument("--amp_autocast", action="store_true")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, test_loaders, data_processor = load_darcy_flow_small(n_train=1000, batch_size=32,
                                                                       test_resolutions=[16, 32], n_tests=[100, 50],
                                                                       test_batch_sizes=[32, 32])
    data_processor = data_processor.to(device)
    model = FNO(n_modes=(16, 16), hidden_channels=32, in_channels=1, out_channels=1).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.n_epochs)

    l2loss = LpLoss(d=2, p=2)
    h1loss = H1Loss(d=2)
    trainer = Trainer(model=model, n_epochs=args.n_epochs, device=device, amp_autocast=args.amp_autocast,
                      data_processor=data_processor, verbose=True)
    trainer.train(train_loader=train_loader, test_loaders=test_loaders, optimizer=optimizer, scheduler=scheduler,
                  training_loss=h1loss, eval_losses={"h1": h1loss, "l2": l2loss})


if __name__ == "__main__":
    main()
