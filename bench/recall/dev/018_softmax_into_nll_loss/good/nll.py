import torch
from torch import nn

logits = torch.randn(4, 5)
log_softmax_layer = nn.LogSoftmax(dim=1)
log_probs = log_softmax_layer(logits)
loss_func = nn.NLLLoss()
target = torch.tensor([2, 0, 1, 4])
loss = loss_func(log_probs, target)
print(loss)
