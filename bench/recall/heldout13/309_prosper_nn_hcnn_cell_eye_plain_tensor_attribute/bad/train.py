import torch

from hcnn import HCNN


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    past_horizon, forecast_horizon, n_features_Y = 30, 5, 3
    Y = torch.randn(past_horizon, 64, n_features_Y, device=device)

    model = HCNN(n_state_neurons=20, n_features_Y=n_features_Y, past_horizon=past_horizon,
                 forecast_horizon=forecast_horizon, teacher_forcing=0.9)
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    targets = torch.zeros_like(Y)

    for epoch in range(200):
        optimizer.zero_grad()
        past_error, _ = model(Y)
        loss = torch.nn.functional.mse_loss(past_error, targets)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
