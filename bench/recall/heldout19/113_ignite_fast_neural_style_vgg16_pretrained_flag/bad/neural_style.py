import torch
import torch.nn as nn
from torch.optim import Adam
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from vgg import Vgg16


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def normalize_batch(batch):
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    return (batch.div(255.0) - mean) / std


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 9, padding=4), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
            nn.Conv2d(32, 3, 9, padding=4),
        )

    def forward(self, x):
        return self.net(x)


def train(dataset_dir, style_image, epochs=2, lr=1e-3, content_weight=1e5, style_weight=1e10):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(256), transforms.ToTensor(),
                                    transforms.Lambda(lambda x: x.mul(255))])
    loader = DataLoader(datasets.ImageFolder(dataset_dir, transform), batch_size=4)

    transformer = TransformerNet().to(device)
    optimizer = Adam(transformer.parameters(), lr)
    mse_loss = nn.MSELoss()
    vgg = Vgg16(requires_grad=False).to(device)

    style = style_image.repeat(4, 1, 1, 1).to(device)
    gram_style = [gram_matrix(y) for y in vgg(normalize_batch(style))]

    for epoch in range(epochs):
        transformer.train()
        for x, _ in loader:
            x = x.to(device)
            optimizer.zero_grad()
            y = normalize_batch(transformer(x))
            x = normalize_batch(x)
            features_y, features_x = vgg(y), vgg(x)
            content_loss = content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
            style_loss = 0.0
            for ft_y, gm_s in zip(features_y, gram_style):
                style_loss += mse_loss(gram_matrix(ft_y), gm_s[: len(x), :, :])
            total_loss = content_loss + style_weight * style_loss
            total_loss.backward()
            optimizer.step()
        print("epoch", epoch, "loss", total_loss.item())
    return transformer
