import argparse

import torch
from torch import optim
from torch.utils.data import DataLoader, TensorDataset

from dynamics import PendulumDx, load_env


class ImitationExperiment:
    def __init__(self, env_name, mode, learn_cost, learn_dx, device, n_epoch=100):
        self.env_name = env_name
        self.mode = mode
        self.learn_cost = learn_cost
        self.learn_dx = learn_dx
        self.device = device
        self.n_epoch = n_epoch
        self.env = load_env(env_name)

        true_q, true_p = self.env.true_objective()
        self.learn_q_logit = torch.zeros_like(true_q, requires_grad=True, device=self.device)
        self.learn_p = torch.zeros_like(true_p, requires_grad=True, device=self.device)

        if self.learn_dx:
            if env_name == "pendulum":
                self.env_params = torch.tensor((15.0, 3.0, 0.5), requires_grad=True, device=self.device)
            else:
                self.env_params = torch.tensor((9.8, 3.0, 0.1, 1.0), requires_grad=True, device=self.device)
        else:
            self.env_params = self.env.true_dx.params.to(self.device)

    def build_optimizer(self):
        if self.mode == "sysid":
            return optim.RMSprop([{"params": self.env_params, "lr": 1e-2, "alpha": 0.5}])
        params = []
        if self.learn_cost:
            params += [self.learn_q_logit, self.learn_p]
        if self.learn_dx:
            params.append(self.env_params)
        return optim.RMSprop([{"params": params, "lr": 1e-2, "alpha": 0.5}])

    def run(self):
        opt = self.build_optimizer()
        xs = self.env.train_x.to(self.device)
        us = self.env.train_u.to(self.device)
        loader = DataLoader(TensorDataset(xs, us), batch_size=32, shuffle=True)
        for epoch in range(self.n_epoch):
            for x, u in loader:
                dx = PendulumDx(self.env_params)
                pred_next = dx(x[:, :-1].reshape(-1, 3), u[:, :-1].reshape(-1, 1))
                sysid_loss = (x[:, 1:].reshape(-1, 3) - pred_next).pow(2).mean()
                q = torch.sigmoid(self.learn_q_logit)
                cost_loss = (q * u.pow(2).mean()).sum() + (q.sqrt() * self.learn_p).sum()
                loss = sysid_loss if self.mode == "sysid" else sysid_loss + cost_loss
                opt.zero_grad()
                loss.backward()
                if self.learn_cost and self.learn_p.grad is not None:
                    self.learn_p.grad.zero_()
                opt.step()
            print(f"epoch {epoch}: loss {loss.item():.5f} params {self.env_params.detach().cpu().tolist()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="pendulum")
    parser.add_argument("--mode", default="sysid", choices=["empc", "sysid"])
    parser.add_argument("--learn_cost", action="store_true")
    parser.add_argument("--no-cuda", action="store_true")
    args = parser.parse_args()
    device = "cuda" if not args.no_cuda and torch.cuda.is_available() else "cpu"
    exp = ImitationExperiment(args.env, args.mode, args.learn_cost, learn_dx=True, device=device)
    exp.run()


if __name__ == "__main__":
    main()
