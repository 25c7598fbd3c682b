import torch
import pysdtw

device = torch.device("cuda")

X = torch.rand((10, 5, 7), device=device, requires_grad=True)
Y = torch.rand((10, 9, 7), device=device)

fun = pysdtw.distance.pairwise_l2_squared
sdtw = pysdtw.SoftDTW(gamma=1.0, dist_func=fun, use_cuda=True)

res = sdtw(X, Y)
loss = res.sum()
loss.backward()
print(X.grad)
