import torch
from torch import nn


class ToyModule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(3, 3)
        self.offsets = torch.tensor([0.0, 2.0, 3.0])  # expect: TCK606

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x) + self.offsets


toy = ToyModule()
toy.cuda()
print(toy.offsets.device)
