import torch
from torch import nn

logits = torch.randn(4, 5)
softmax_layer = nn.Softmax(dim=1)
probs = softmax_layer(logits)
loss_func = nn.NLLLoss()
target = torch.tensor([2, 0, 1, 4])
loss = loss_func(probs, target)  # expect: TCK605
print(loss)
