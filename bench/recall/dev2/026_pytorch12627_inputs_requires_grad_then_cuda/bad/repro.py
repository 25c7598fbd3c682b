import torch
from torch import nn, optim

inputs = torch.Tensor(torch.randn(3, 5))  # expect: TCK703
targets = torch.Tensor([1, 2, 3]).long()  # expect: TCK703
inputs.requires_grad = True

inputs, targets = inputs.cuda(), targets.cuda()  # expect: TCK108

Net = nn.Sequential(
    nn.Linear(5, 5),
    nn.Softmax(),  # expect: TCK608
).cuda()

out = Net(inputs[0])
Net.train()
optimizer = optim.Adam(Net.parameters(), lr=0.001)
loss_fn = nn.NLLLoss()
for i in range(3):
    optimizer.zero_grad()
    loss = loss_fn(out.view(1, 5), targets[0].view(1))  # expect: TCK605
    loss.backward(retain_graph=True)
    print(inputs.grad)
    optimizer.step()
