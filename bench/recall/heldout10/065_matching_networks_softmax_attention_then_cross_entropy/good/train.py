import torch
import torch.nn.functional as F

from matching_network import MatchingNetwork


def sample_episode(batch_size=8, n_way=5, k_shot=1, n_query=2):
    support = torch.randn(batch_size, n_way * k_shot, 1, 28, 28)
    support_labels = torch.arange(n_way).repeat_interleave(k_shot).expand(batch_size, -1)
    support_one_hot = F.one_hot(support_labels, n_way).float()
    target = torch.randn(batch_size, n_query, 1, 28, 28)
    target_label = torch.randint(0, n_way, (batch_size, n_query))
    return support, support_one_hot, target, target_label


def main():
    model = MatchingNetwork()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for episode in range(100):
        support, support_one_hot, target, target_label = sample_episode()
        optimizer.zero_grad()
        acc, loss = model(support, support_one_hot, target, target_label)
        loss.backward()
        optimizer.step()
        if episode % 10 == 0:
            print(episode, acc.item(), loss.item())


if __name__ == "__main__":
    main()
