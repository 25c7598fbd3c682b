import argparse

import numpy as np
import torch
import torch.optim as optim

from model import MyNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_channel", type=int, default=100)
    parser.add_argument("--n_conv", type=int, default=3)
    parser.add_argument("--max_iter", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    use_cuda = torch.cuda.is_available()
    image = np.random.rand(64, 64, 3).astype("float32")
    data = torch.from_numpy(image.transpose(2, 0, 1)).unsqueeze(0)

    model = MyNet(data.size(1), args.n_channel, args.n_conv)
    if use_cuda:
        data = data.cuda()
        model.cuda()
    model.train()
    loss_fn = torch.nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for it in range(args.max_iter):
        optimizer.zero_grad()
        output = model(data)[0]
        output = output.permute(1, 2, 0).reshape(-1, args.n_channel)
        _, target = torch.max(output, 1)
        loss = loss_fn(output, target.detach())
        loss.backward()
        optimizer.step()
        n_labels = len(torch.unique(target))
        print(it, n_labels, loss.item())


if __name__ == "__main__":
    main()
