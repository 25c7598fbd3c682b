import torch

from net import vgg16_bn


def load_model():
    model = vgg16_bn()
    model.load_state_dict(torch.load("yolo.pth", weights_only=True))
    model.eval()
    return model.cuda()
