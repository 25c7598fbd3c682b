import torch
import torch.nn as nn

x = torch.randn(2, 2, requires_grad=True).cuda(0)  # expect: TCK108
t = torch.randn(2, 2).cuda(0)  # expect: TCK201
loss_func = nn.MSELoss().cuda(0)
l1 = nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)]).cuda(0)
l2 = nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)]).cuda(0)
h1 = l1(x)
h2 = h1.detach().requires_grad_()
h3 = l2(h2)
loss = loss_func(h3, t)
loss.backward()
print("h2:", h2.grad)
h1.backward(gradient=h2.grad)
print("x:", x.grad)
