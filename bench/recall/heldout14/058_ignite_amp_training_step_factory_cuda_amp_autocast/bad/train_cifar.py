import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from engine import create_supervised_trainer


def main(amp_mode="amp"):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 256), nn.ReLU(), nn.Linear(256, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=2)
    trainer = create_supervised_trainer(
        model, optimizer, nn.CrossEntropyLoss(), device=device,
        amp_mode=amp_mode if device == "cuda" else None, scaler=True,
    )
    state = trainer.run(loader, max_epochs=2)
    print("last loss", state.output)


if __name__ == "__main__":
    main()
