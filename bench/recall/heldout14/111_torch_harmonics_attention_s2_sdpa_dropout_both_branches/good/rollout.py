import torch

from sphere.model import SphericalForecaster


def train_then_rollout(steps=200, horizon=8):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = SphericalForecaster().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    state = torch.randn(8, 4, 16, 32, device=device)
    target = torch.roll(state, shifts=1, dims=-1)
    model.train()
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.mean((model(state) - target) ** 2)
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.inference_mode():
        x = state[:1]
        trajectory = [x]
        for _ in range(horizon):
            x = model(x)
            trajectory.append(x)
    return torch.stack(trajectory, dim=1)


if __name__ == "__main__":
    print(train_then_rollout().shape)
