import torch

from soft_dtw import SoftDTW

device = torch.device("cuda")

batch_size, len_x, len_y, dims = 8, 15, 12, 5
x = torch.rand((batch_size, len_x, dims), device=device, requires_grad=True)
y = torch.rand((batch_size, len_y, dims), device=device)

sdtw = SoftDTW(use_cuda=True, gamma=0.1)
loss = sdtw(x, y)
loss.mean().backward()

print(x.grad)
