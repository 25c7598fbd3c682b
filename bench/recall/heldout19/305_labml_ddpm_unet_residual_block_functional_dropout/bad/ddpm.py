import torch
import torch.nn.functional as F


class DenoiseDiffusion:
    def __init__(self, eps_model, n_steps, device):
        self.eps_model = eps_model
        self.beta = torch.linspace(0.0001, 0.02, n_steps, device=device)
        self.alpha = 1.0 - self.beta
        self.alpha_bar = torch.cumprod(self.alpha, dim=0)
        self.n_steps = n_steps
        self.sigma2 = self.beta

    def q_sample(self, x0, t, eps):
        alpha_bar = self.alpha_bar[t].view(-1, 1, 1, 1)
        return alpha_bar.sqrt() * x0 + (1 - alpha_bar).sqrt() * eps

    @torch.no_grad()
    def p_sample(self, xt, t):
        eps_theta = self.eps_model(xt, t)
        alpha_bar = self.alpha_bar[t].view(-1, 1, 1, 1)
        alpha = self.alpha[t].view(-1, 1, 1, 1)
        eps_coef = (1 - alpha) / (1 - alpha_bar).sqrt()
        mean = (xt - eps_coef * eps_theta) / alpha.sqrt()
        var = self.sigma2[t].view(-1, 1, 1, 1)
        return mean + var.sqrt() * torch.randn_like(xt)

    def loss(self, x0):
        t = torch.randint(0, self.n_steps, (x0.shape[0],), device=x0.device, dtype=torch.long)
        noise = torch.randn_like(x0)
        xt = self.q_sample(x0, t, noise)
        return F.mse_loss(noise, self.eps_model(xt, t))
