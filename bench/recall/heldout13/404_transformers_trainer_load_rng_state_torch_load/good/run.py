import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from trainer import Trainer


if __name__ == "__main__":
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(torch.randn(10000, 32), torch.randint(0, 4, (10000,))), batch_size=32, shuffle=True)
    resume = sys.argv[1] if len(sys.argv) > 1 else None
    Trainer(model, optimizer, loader).train(num_epochs=3, resume_from_checkpoint=resume)
