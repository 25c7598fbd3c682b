import torch
from torch.utils.data import DataLoader, TensorDataset

from model import BOARD_M, BOARD_N, CRNet


def self_play_buffer(n=512):
    """Stand-in for the self-play replay buffer: states, MCTS visit distributions, outcomes."""
    states = torch.randint(0, 2, (n, 7, BOARD_M, BOARD_N)).float()
    visits = torch.rand(n, BOARD_M * BOARD_N)
    policies = (visits / visits.sum(dim=1, keepdim=True)).reshape(n, BOARD_M, BOARD_N)
    values = torch.empty(n).uniform_(-1, 1)
    return TensorDataset(states, policies, values)


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)

    def train_epoch(self, loader, device):
        self.model.train()
        total = 0.0
        for states, policies, values in loader:
            states, policies, values = states.to(device), policies.to(device), values.to(device)
            self.optimizer.zero_grad()
            out = self.model(states)
            loss = self.model.alphaloss(out, values, policies)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(loader)

    @torch.no_grad()
    def move_priors(self, state):
        self.model.eval()
        return torch.softmax(self.model(state)["policy"].reshape(-1), dim=0)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CRNet().to(device)
    trainer = Trainer(model)
    loader = DataLoader(self_play_buffer(), batch_size=64, shuffle=True, drop_last=True)
    for epoch in range(5):
        print(epoch, trainer.train_epoch(loader, device))
    print(trainer.move_priors(torch.zeros(7, BOARD_M, BOARD_N, device=device)).sum().item())


if __name__ == "__main__":
    main()
