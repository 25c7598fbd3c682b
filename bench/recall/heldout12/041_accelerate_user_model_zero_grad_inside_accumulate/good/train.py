import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, in_dim=256, hidden=512, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.net(x)


def main(epochs=20, batch_size=16, grad_accum=8, max_grad_norm=1.0):
    accelerator = Accelerator(gradient_accumulation_steps=grad_accum)
    data = TensorDataset(torch.randn(20_000, 256), torch.randint(0, 10, (20_000,)))
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader) // grad_accum)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)

    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            with accelerator.accumulate(model):
                loss = F.cross_entropy(model(x), y)
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), max_grad_norm)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        accelerator.print(f"epoch {epoch}: last loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
