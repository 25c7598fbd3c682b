import torch

t1 = torch.tensor([1, 1, 1], dtype=torch.float, requires_grad=True)
# meant as a plain copy of the current values, outside the graph
t2 = torch.tensor(t1, requires_grad=False)  # expect: TCK704
print(t2.requires_grad)
print(t1)
print(t2)
