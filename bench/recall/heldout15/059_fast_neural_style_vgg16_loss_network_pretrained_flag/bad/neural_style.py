import argparse

import torch
from torch.optim import Adam
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from vgg import Vgg16


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.reshape(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def normalize_batch(batch):
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    return (batch / 255.0 - mean) / std


class TransformerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 9, padding=4),
            torch.nn.InstanceNorm2d(32, affine=True),
            torch.nn.ReLU(),
            torch.nn.Conv2d(32, 3, 9, padding=4),
        )

    def forward(self, x):
        return self.net(x)


def train(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = transforms.Compose([
        transforms.Resize(args.image_size),
        transforms.CenterCrop(args.image_size),
        transforms.ToTensor(),
        transforms.Lambda(lambda x: x.mul(255)),
    ])
    train_dataset = datasets.ImageFolder(args.dataset, transform)
    train_loader = DataLoader(train_dataset, batch_size=args.batch_size, num_workers=4)

    transformer = TransformerNet().to(device)
    optimizer = Adam(transformer.parameters(), args.lr)
    mse_loss = torch.nn.MSELoss()
    vgg = Vgg16(requires_grad=False).to(device)

    style = transform(datasets.folder.default_loader(args.style_image)).repeat(args.batch_size, 1, 1, 1).to(device)
    gram_style = [gram_matrix(y) for y in vgg(normalize_batch(style))]

    for epoch in range(args.epochs):
        transformer.train()
        for x, _ in train_loader:
            n_batch = len(x)
            optimizer.zero_grad()
            x = x.to(device)
            y = normalize_batch(transformer(x))
            x = normalize_batch(x)
            features_y = vgg(y)
            features_x = vgg(x)
            content_loss = args.content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
            style_loss = 0.0
            for ft_y, gm_s in zip(features_y, gram_style):
                style_loss += mse_loss(gram_matrix(ft_y), gm_s[:n_batch, :, :])
            total_loss = content_loss + args.style_weight * style_loss
            total_loss.backward()
            optimizer.step()
    torch.save(transformer.state_dict(), args.save_model)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--style-image", dest="style_image", required=True)
    parser.add_argument("--save-model", dest="save_model", default="style.pth")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", dest="batch_size", type=int, default=4)
    parser.add_argument("--image-size", dest="image_size", type=int, default=256)
    parser.add_argument("--content-weight", dest="content_weight", type=float, default=1e5)
    parser.add_argument("--style-weight", dest="style_weight", type=float, default=1e10)
    parser.add_argument("--lr", type=float, default=1e-3)
    train(parser.parse_args())
