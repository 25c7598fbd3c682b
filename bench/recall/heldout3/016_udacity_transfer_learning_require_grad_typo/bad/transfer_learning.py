import torch
import torch.nn as nn
import torch.optim as optim
from torchvision import models

vgg16 = models.vgg16(weights=models.VGG16_Weights.IMAGENET1K_V1)

for param in vgg16.features.parameters():
    param.require_grad = False  # expect: TCK905

n_inputs = vgg16.classifier[6].in_features
vgg16.classifier[6] = nn.Linear(n_inputs, 5)

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(vgg16.classifier.parameters(), lr=0.001)
