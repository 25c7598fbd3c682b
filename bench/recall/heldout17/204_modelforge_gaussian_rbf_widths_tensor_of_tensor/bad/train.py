import torch

from schnet import SchNet


def train(loader, epochs: int = 100):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = SchNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        for batch in loader:
            batch = {k: v.to(device) if torch.is_tensor(v) else v for k, v in batch.items()}
            optimizer.zero_grad()
            pred = model(
                batch["atomic_numbers"], batch["positions"], batch["pairs"],
                batch["atomic_subsystem_indices"], batch["n_molecules"],
            )
            loss = torch.nn.functional.mse_loss(pred, batch["energy"])
            loss.backward()
            optimizer.step()
    return model
