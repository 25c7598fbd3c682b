import torch
from torch import nn

from costs import proximity_cost


class Policy(nn.Module):
    def __init__(self, n_actions=2, npred=20, crop=(117, 24)):
        super().__init__()
        self.npred = npred
        self.crop = crop
        self.encoder = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(16, n_actions)
        self.render = nn.Linear(n_actions, npred * 3 * crop[0] * crop[1])

    def forward(self, image):
        actions = torch.tanh(self.head(self.encoder(image)))
        predicted = torch.sigmoid(self.render(actions))
        return actions, predicted.view(image.size(0), self.npred, 3, *self.crop)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    policy = Policy().to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-4)
    for step in range(50):
        image = torch.rand(8, 3, 117, 24, device=device)
        car_size = torch.tensor([[6.0, 15.0]] * 8)
        actions, predicted = policy(image)
        cost, _ = proximity_cost(predicted, car_size)
        loss = cost.mean() + 0.01 * actions.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
