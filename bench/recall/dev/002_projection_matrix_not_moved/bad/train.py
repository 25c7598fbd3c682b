import torch

from model import Projector

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Projector(784, 10)
model.to(device)
batch = torch.randn(32, 784, device=device)
print(model(batch).shape)
