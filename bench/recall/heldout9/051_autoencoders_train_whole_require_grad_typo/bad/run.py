import torch
from torch import optim
from torch.nn import BCELoss

from common.datas import get_mnist_loader
from models import AutoEncoderLayer, StackedAutoEncoder


def train_whole(model=None, epoch=50, batch_size=100):
    if torch.cuda.is_available():
        model.cuda()

    # unfreeze what greedy layer-wise pre-training locked
    for param in model.parameters():
        param.require_grad = True  # expect: TCK905

    train_loader, _ = get_mnist_loader(batch_size=batch_size, shuffle=True)
    optimizer = optim.SGD(model.parameters(), lr=0.001)
    criterion = BCELoss()
    for _ in range(epoch):
        for images, _ in train_loader:
            if torch.cuda.is_available():
                images = images.cuda()
            x = images.view(images.size(0), -1)
            out = model(x)
            optimizer.zero_grad()
            loss = criterion(out, x)
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    layers = [AutoEncoderLayer(784, 256), AutoEncoderLayer(256, 64), AutoEncoderLayer(64, 256), AutoEncoderLayer(256, 784)]
    train_whole(model=StackedAutoEncoder(layers_list=layers), epoch=50)
