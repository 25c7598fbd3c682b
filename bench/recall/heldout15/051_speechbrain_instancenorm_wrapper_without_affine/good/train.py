import torch
from torch.utils.data import DataLoader, TensorDataset

from model import MaskEstimator


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    noisy = torch.rand(256, 100, 257)
    clean = noisy * torch.rand(256, 100, 257)
    loader = DataLoader(TensorDataset(noisy, clean), batch_size=16, shuffle=True, num_workers=2)

    model = MaskEstimator().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(5):
        model.train()
        for noisy_spec, clean_spec in loader:
            noisy_spec = noisy_spec.to(device)
            clean_spec = clean_spec.to(device)
            mask = model(noisy_spec)
            loss = torch.nn.functional.mse_loss(mask * noisy_spec, clean_spec)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())
    torch.save(model.state_dict(), "enhancer.ckpt")


if __name__ == "__main__":
    main()
