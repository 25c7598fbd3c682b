import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = a.cuda()  # expect: TCK108
b = a ** 2
c = b.mean(0)
c.backward()
print(a.grad)
