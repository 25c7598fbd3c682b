import torch
from torch.autograd import Variable

x = Variable(torch.ones(10), requires_grad=True).cuda()  # expect: TCK108, TCK703
y = x * Variable(torch.linspace(1, 10, 10), requires_grad=False).cuda()  # expect: TCK703
y.backward(torch.ones(10).cuda())  # expect: TCK201
print(x.grad)
