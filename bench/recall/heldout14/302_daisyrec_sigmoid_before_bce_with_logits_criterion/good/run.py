import torch
from torch.utils.data import DataLoader, TensorDataset

from neumf import NeuMF

config = {
    "lr": 1e-3,
    "epochs": 3,
    "loss_type": "CL",
    "factors": 16,
    "reg": 1e-4,
    "dropout": 0.1,
    "user_num": 100,
    "item_num": 200,
}

users = torch.randint(0, 100, (5000,))
items = torch.randint(0, 200, (5000,))
labels = torch.randint(0, 2, (5000,))
loader = DataLoader(TensorDataset(users, items, labels), batch_size=256, shuffle=True)

model = NeuMF(config)
model.fit(loader)
print(model.predict(users[:10], items[:10]))
