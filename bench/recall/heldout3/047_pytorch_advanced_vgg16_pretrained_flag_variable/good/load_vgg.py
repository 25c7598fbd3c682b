import torch
import torchvision
from torchvision import models, transforms

net = models.vgg16(weights=models.VGG16_Weights.IMAGENET1K_V1)
net.eval()
print(net)

transform = transforms.Compose([
    transforms.Resize(224),
    transforms.CenterCrop(224),
    transforms.ToTensor(),
    transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
])
