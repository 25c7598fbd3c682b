import torch

from train import Net

net = Net()
net.load_state_dict(torch.load("checkpoint/multi/netG_model_epoch_3.pth", weights_only=True))
net.eval()
