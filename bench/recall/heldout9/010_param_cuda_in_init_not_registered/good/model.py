import torch


class Model(torch.nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.t = torch.nn.Parameter(torch.rand(10), requires_grad=True)
        self.linear = torch.nn.Linear(10, 20)

    def forward(self, x):
        x = self.t + x
        return self.linear(x)


m = Model().cuda()
optimizer = torch.optim.Adam(m.parameters(), lr=1e-3)
for step in range(100):
    x = torch.randn(4, 10, device="cuda")
    loss = m(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print([name for name, _ in m.named_parameters()])
