import torch
from torch import nn, optim

inputs = torch.randn(3, 5, device="cuda", requires_grad=True)
targets = torch.tensor([1, 2, 3], device="cuda")

Net = nn.Sequential(
    nn.Linear(5, 5),
    nn.LogSoftmax(dim=-1),
).cuda()

out = Net(inputs[0])
Net.train()
optimizer = optim.Adam(Net.parameters(), lr=0.001)
loss_fn = nn.NLLLoss()
for i in range(3):
    optimizer.zero_grad()
    loss = loss_fn(out.view(1, 5), targets[0].view(1))
    loss.backward(retain_graph=True)
    print(inputs.grad)
    optimizer.step()
