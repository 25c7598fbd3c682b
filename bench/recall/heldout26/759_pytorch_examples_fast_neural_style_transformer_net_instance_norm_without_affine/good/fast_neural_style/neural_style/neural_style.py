"""Train a fast style-transfer network (perceptual content + Gram-matrix style losses)."""
import torch
from torch.optim import Adam

from transformer_net import TransformerNet
from vgg import Vgg16


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


def train(style_image, steps=100, content_weight=1e5, style_weight=1e10, lr=1e-3):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transformer = TransformerNet().to(device)
    optimizer = Adam(transformer.parameters(), lr)
    mse_loss = torch.nn.MSELoss()
    vgg = Vgg16(requires_grad=False).to(device)
    gram_style = [gram_matrix(f) for f in vgg(style_image.to(device))]

    for step in range(steps):
        x = torch.rand(4, 3, 256, 256, device=device)
        optimizer.zero_grad()
        y = transformer(x)
        features_y, features_x = vgg(y), vgg(x)
        content_loss = content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
        style_loss = sum(mse_loss(gram_matrix(fy), gs.expand(4, -1, -1)) for fy, gs in zip(features_y, gram_style))
        loss = content_loss + style_weight * style_loss
        loss.backward()
        optimizer.step()
    torch.save(transformer.state_dict(), "style.model")


if __name__ == "__main__":
    train(torch.rand(1, 3, 256, 256))
