import argparse

import torch
from torch.utils import data

from ptsemseg.models import cross_entropy2d, get_model


class RandomSegmentation(data.Dataset):
    def __init__(self, n=200, size=(256, 256), n_classes=21):
        self.n, self.size, self.n_classes = n, size, n_classes

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.rand(3, *self.size, generator=g), torch.randint(0, self.n_classes, self.size, generator=g)


def train(args):
    loader = RandomSegmentation(size=(args.img_rows, args.img_cols))
    trainloader = data.DataLoader(loader, batch_size=args.batch_size, num_workers=4, shuffle=True)

    model = get_model(args.arch, loader.n_classes)
    model = torch.nn.DataParallel(model, device_ids=range(torch.cuda.device_count()))
    model.cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.l_rate, momentum=0.99, weight_decay=5e-4)

    for epoch in range(args.n_epoch):
        model.train()
        for i, (images, labels) in enumerate(trainloader):
            images, labels = images.cuda(), labels.cuda()
            optimizer.zero_grad()
            loss = cross_entropy2d(model(images), labels)
            loss.backward()
            optimizer.step()
            if (i + 1) % 20 == 0:
                print("Epoch [%d/%d] Loss: %.4f" % (epoch + 1, args.n_epoch, loss.item()))

        state = {
            "epoch": epoch + 1,
            "model_state": model.state_dict(),
            "optimizer_state": optimizer.state_dict(),
        }
        torch.save(state, "{}_{}_best_model.pkl".format(args.arch, args.feature_scale))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Hyperparams")
    parser.add_argument("--arch", type=str, default="fcn8s")
    parser.add_argument("--img_rows", type=int, default=256)
    parser.add_argument("--img_cols", type=int, default=256)
    parser.add_argument("--n_epoch", type=int, default=100)
    parser.add_argument("--batch_size", type=int, default=1)
    parser.add_argument("--l_rate", type=float, default=1e-5)
    parser.add_argument("--feature_scale", type=int, default=1)
    train(parser.parse_args())
