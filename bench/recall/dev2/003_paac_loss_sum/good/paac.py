import torch
import torch.nn.functional as F


class PAACLearner:
    def __init__(self, network, optimizer, envs, args):
        self.network = network
        self.optimizer = optimizer
        self.envs = envs
        self.args = args

    def train(self):
        loss_sum = 0
        for update in range(self.args.max_updates):
            log_probs, values, entropies, rewards = self.rollout()
            returns = self.discounted_returns(rewards, values[-1])
            advantages = returns - torch.stack(values[:-1])
            policy_loss = -(torch.stack(log_probs) * advantages.detach()).mean()
            value_loss = F.mse_loss(torch.stack(values[:-1]), returns)
            loss = policy_loss + 0.5 * value_loss - 0.01 * torch.stack(entropies).mean()
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), 40.0)
            self.optimizer.step()
            loss_sum += loss.item()
            if (update + 1) % self.args.log_every == 0:
                print("update", update + 1, "mean loss", loss_sum / self.args.log_every)
                loss_sum = 0

    def rollout(self):
        raise NotImplementedError

    def discounted_returns(self, rewards, bootstrap):
        raise NotImplementedError
