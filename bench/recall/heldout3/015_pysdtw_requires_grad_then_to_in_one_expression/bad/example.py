import torch
import pysdtw

device = torch.device("cuda")

X = torch.rand((10, 5, 7), requires_grad=True).to(device)  # expect: TCK108
Y = torch.rand((10, 9, 7)).to(device)  # expect: TCK201

fun = pysdtw.distance.pairwise_l2_squared
sdtw = pysdtw.SoftDTW(gamma=1.0, dist_func=fun, use_cuda=True)

res = sdtw(X, Y)
loss = res.sum()
loss.backward()
print(X.grad)
