import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from engine import create_supervised_trainer


def main():
    device = "cuda"
    model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 256), nn.ReLU(), nn.Linear(256, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    data = TensorDataset(torch.randn(2048, 1, 28, 28), torch.randint(0, 10, (2048,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    trainer = create_supervised_trainer(model, optimizer, nn.CrossEntropyLoss(), device=device,
                                        amp_mode="amp", scaler=True, gradient_accumulation_steps=2)
    trainer.run(loader, max_epochs=3)


if __name__ == "__main__":
    main()
