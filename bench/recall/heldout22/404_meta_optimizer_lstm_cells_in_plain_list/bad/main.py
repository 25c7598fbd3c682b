import argparse

import torch
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

from meta_optimizer import MetaModel, MetaOptimizer
from model import Model

parser = argparse.ArgumentParser(description="learning to learn by gradient descent")
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--optimizer_steps", type=int, default=100)
parser.add_argument("--truncated_bptt_step", type=int, default=20)
parser.add_argument("--updates_per_epoch", type=int, default=10)
parser.add_argument("--max_epoch", type=int, default=100)
parser.add_argument("--hidden_size", type=int, default=10)
parser.add_argument("--num_layers", type=int, default=2)
parser.add_argument("--no-cuda", action="store_true", default=False)
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

train_loader = torch.utils.data.DataLoader(
    datasets.MNIST("../data", train=True, download=True, transform=transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])),
    batch_size=args.batch_size, shuffle=True)


def main():
    meta_model = Model()
    if args.cuda:
        meta_model.cuda()

    meta_optimizer = MetaOptimizer(MetaModel(meta_model), args.num_layers, args.hidden_size)
    if args.cuda:
        meta_optimizer.cuda()

    optimizer = optim.Adam(meta_optimizer.parameters(), lr=1e-3)

    for epoch in range(args.max_epoch):
        decrease_in_loss, final_loss = 0.0, 0.0
        train_iter = iter(train_loader)
        for _ in range(args.updates_per_epoch):
            model = Model()
            if args.cuda:
                model.cuda()
            x, y = next(train_iter)
            if args.cuda:
                x, y = x.cuda(), y.cuda()
            initial_loss = F.nll_loss(model(x), y)

            for k in range(args.optimizer_steps // args.truncated_bptt_step):
                meta_optimizer.reset_lstm(keep_states=k > 0, model=model, use_cuda=args.cuda)
                loss_sum = 0
                for _ in range(args.truncated_bptt_step):
                    x, y = next(train_iter)
                    if args.cuda:
                        x, y = x.cuda(), y.cuda()
                    loss = F.nll_loss(model(x), y)
                    model.zero_grad()
                    loss.backward()

                    meta_model = meta_optimizer.meta_update(model)
                    loss = F.nll_loss(meta_model(x), y)
                    loss_sum = loss_sum + loss

                meta_optimizer.zero_grad()
                loss_sum.backward()
                for param in meta_optimizer.parameters():
                    param.grad.data.clamp_(-1, 1)
                optimizer.step()

            decrease_in_loss += loss.item() / initial_loss.item()
            final_loss += loss.item()

        print("Epoch: {}, final loss {}, average final/initial loss ratio: {}".format(
            epoch, final_loss / args.updates_per_epoch, decrease_in_loss / args.updates_per_epoch))


if __name__ == "__main__":
    main()
