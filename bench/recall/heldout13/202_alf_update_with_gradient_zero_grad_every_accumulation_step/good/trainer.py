import torch

from algorithm import ActorCriticAlgorithm


def collect_experience(batch_size, obs_dim, num_actions):
    obs = torch.randn(batch_size, obs_dim)
    actions = torch.randint(0, num_actions, (batch_size,))
    returns = torch.randn(batch_size)
    return obs, actions, returns


def train(num_iterations=1000, mini_batches_per_iter=8):
    algorithm = ActorCriticAlgorithm(obs_dim=8, num_actions=4, lr=1e-3, grad_acc_steps=4,
                                     max_grad_norm=0.5)
    for iteration in range(num_iterations):
        for _ in range(mini_batches_per_iter):
            obs, actions, returns = collect_experience(64, 8, 4)
            loss = algorithm.loss(obs, actions, returns)
            algorithm.update_with_gradient(loss)
        if iteration % 100 == 0:
            print(f"iteration {iteration}: loss {loss.item():.4f}")


if __name__ == "__main__":
    train()
