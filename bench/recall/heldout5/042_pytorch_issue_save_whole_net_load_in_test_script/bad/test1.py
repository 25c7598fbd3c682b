import torch

net = torch.load("checkpoint/multi/netG_model_epoch_3.pth", weights_only=False)
net.eval()
