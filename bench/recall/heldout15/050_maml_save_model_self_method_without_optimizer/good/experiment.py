import argparse
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from few_shot_system import FewShotClassifier


def build_loader(num_samples, batch_size):
    images = torch.randn(num_samples, 3, 28, 28)
    labels = torch.randint(0, 5, (num_samples,))
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True, num_workers=2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--save_dir", default="saved_models")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = FewShotClassifier(3, 5, meta_lr=1e-3, total_epochs=args.epochs, device=device)
    loader = build_loader(512, 32)
    os.makedirs(args.save_dir, exist_ok=True)

    state = {"current_epoch": 0, "best_val_acc": 0.0}
    if args.resume:
        state = model.load_model(args.save_dir, "train_model", "latest")
    start_epoch = state["current_epoch"]

    for epoch in range(start_epoch, args.epochs):
        for batch in loader:
            loss = model.run_train_iter(batch, epoch)
        model.end_epoch()
        print("epoch", epoch, "loss", loss)
        state["current_epoch"] = epoch + 1
        model.save_model(os.path.join(args.save_dir, "train_model_{}".format(epoch)), state=state)
        model.save_model(os.path.join(args.save_dir, "train_model_latest"), state=state)


if __name__ == "__main__":
    main()
