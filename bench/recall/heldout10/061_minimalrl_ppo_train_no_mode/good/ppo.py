import gym
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class PPO(nn.Module):
    def __init__(self, gamma=0.98, lmbda=0.95, eps_clip=0.1, k_epoch=3):
        super(PPO, self).__init__()
        self.data = []
        self.gamma, self.lmbda, self.eps_clip, self.k_epoch = gamma, lmbda, eps_clip, k_epoch
        self.fc1 = nn.Linear(4, 256)
        self.fc_pi = nn.Linear(256, 2)
        self.fc_v = nn.Linear(256, 1)
        self.optimizer = optim.Adam(self.parameters(), lr=0.0005)

    def pi(self, x, softmax_dim=0):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc_pi(x), dim=softmax_dim)

    def v(self, x):
        return self.fc_v(F.relu(self.fc1(x)))

    def put_data(self, transition):
        self.data.append(transition)

    def make_batch(self):
        s, a, r, s_prime, prob_a, done = zip(*self.data)
        self.data = []
        return (
            torch.tensor(s, dtype=torch.float),
            torch.tensor(a).unsqueeze(1),
            torch.tensor(r, dtype=torch.float).unsqueeze(1),
            torch.tensor(s_prime, dtype=torch.float),
            torch.tensor([0.0 if d else 1.0 for d in done]).unsqueeze(1),
            torch.tensor(prob_a, dtype=torch.float).unsqueeze(1),
        )

    def train_net(self):
        s, a, r, s_prime, done_mask, prob_a = self.make_batch()
        for _ in range(self.k_epoch):
            td_target = r + self.gamma * self.v(s_prime) * done_mask
            delta = (td_target - self.v(s)).detach()
            advantage = torch.zeros_like(delta)
            running = 0.0
            for t in reversed(range(len(delta))):
                running = self.gamma * self.lmbda * running + delta[t, 0]
                advantage[t, 0] = running
            pi_a = self.pi(s, softmax_dim=1).gather(1, a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))
            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1 - self.eps_clip, 1 + self.eps_clip) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(self.v(s), td_target.detach())
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()


def main():
    env = gym.make("CartPole-v1")
    model = PPO()
    score, horizon = 0.0, 20
    for n_epi in range(1000):
        s, _ = env.reset()
        done = False
        while not done:
            for _ in range(horizon):
                prob = model.pi(torch.from_numpy(s).float())
                a = Categorical(prob).sample().item()
                s_prime, r, terminated, truncated, _ = env.step(a)
                done = terminated or truncated
                model.put_data((s, a, r / 100.0, s_prime, prob[a].item(), done))
                s = s_prime
                score += r
                if done:
                    break
            model.train_net()
        if n_epi % 20 == 0:
            print("episode {} avg score {:.1f}".format(n_epi, score / 20))
            score = 0.0
    env.close()


if __name__ == "__main__":
    main()
