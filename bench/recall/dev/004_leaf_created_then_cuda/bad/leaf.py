import torch

x = torch.tensor([1.0], requires_grad=True).cuda()  # expect: TCK108
y = (x * 2).sum()
y.backward()
print(x.is_leaf, x.grad)
