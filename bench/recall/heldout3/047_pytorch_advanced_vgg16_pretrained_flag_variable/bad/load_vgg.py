import torch
import torchvision
from torchvision import models, transforms

use_pretrained = True
net = models.vgg16(pretrained=use_pretrained)  # expect: TCK909
net.eval()
print(net)

transform = transforms.Compose([
    transforms.Resize(224),
    transforms.CenterCrop(224),
    transforms.ToTensor(),
    transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
])
