import torch
import torch.optim as optim


class KFACOptimizer(optim.Optimizer):
    def __init__(self, model, lr=0.25, momentum=0.9, Ts=1, Tf=10):
        self.modules = [m for m in model.modules() if m.__class__.__name__ in {"Linear", "Conv2d"}]
        super().__init__(model.parameters(), dict(lr=lr))
        self.m_aa, self.m_gg = {}, {}
        self.Q_a, self.Q_g = {}, {}
        self.d_a, self.d_g = {}, {}
        self.steps = 0
        self.Tf = Tf

    def step(self, closure=None):
        for i, m in enumerate(self.modules):
            if self.steps % self.Tf == 0:
                self.d_a[m], self.Q_a[m] = torch.symeig(self.m_aa[m], eigenvectors=True)  # expect: TCK901
                self.d_g[m], self.Q_g[m] = torch.symeig(self.m_gg[m], eigenvectors=True)  # expect: TCK901
                self.d_a[m].mul_((self.d_a[m] > 1e-6).float())
                self.d_g[m].mul_((self.d_g[m] > 1e-6).float())
        self.steps += 1
        return super().step(closure)
