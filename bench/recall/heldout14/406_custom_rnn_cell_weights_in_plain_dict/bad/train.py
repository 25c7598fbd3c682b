import torch
import torch.nn.functional as F

from cells import SequenceRegressor


def main():
    model = SequenceRegressor(input_size=8, hidden_size=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    print("trainable tensors:", sum(1 for _ in model.parameters()))
    for step in range(200):
        seq = torch.randn(16, 12, 8)
        target = seq.sum(dim=(1, 2))
        loss = F.mse_loss(model(seq), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())
    torch.save(model.state_dict(), "gru_regressor.pt")


if __name__ == "__main__":
    main()
