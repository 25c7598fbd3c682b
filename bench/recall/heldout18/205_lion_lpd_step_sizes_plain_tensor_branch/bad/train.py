import torch
import torch.nn.functional as F

from lpd import LPD


def train(loader, epochs=50, device="cuda"):
    model = LPD(learned_step=False).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for epoch in range(epochs):
        model.train()
        for sino, target in loader:
            sino, target = sino.to(device), target.to(device)
            recon = model(sino)
            loss = F.mse_loss(recon, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "lpd_last.pt")
