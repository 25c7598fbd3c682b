import argparse
import copy

import numpy as np
import torch
from torchvision import datasets, transforms

from models.Nets import MLP
from models.Update import LocalUpdate


def fed_avg(weights):
    avg = copy.deepcopy(weights[0])
    for key in avg.keys():
        for w in weights[1:]:
            avg[key] += w[key]
        avg[key] = torch.div(avg[key], len(weights))
    return avg


def iid_split(dataset, num_users):
    per_user = len(dataset) // num_users
    all_idxs = np.random.permutation(len(dataset))
    return {i: set(all_idxs[i * per_user : (i + 1) * per_user]) for i in range(num_users)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--num_users", type=int, default=100)
    parser.add_argument("--frac", type=float, default=0.1)
    parser.add_argument("--local_ep", type=int, default=5)
    parser.add_argument("--local_bs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    args.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    trans = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    dataset_train = datasets.MNIST("./data/mnist/", train=True, download=True, transform=trans)
    dict_users = iid_split(dataset_train, args.num_users)

    net_glob = MLP(dim_in=28 * 28, dim_hidden=200, dim_out=10).to(args.device)
    net_glob.train()
    for rnd in range(args.epochs):
        m = max(int(args.frac * args.num_users), 1)
        local_weights, local_losses = [], []
        for idx in np.random.choice(range(args.num_users), m, replace=False):
            local = LocalUpdate(args=args, dataset=dataset_train, idxs=dict_users[idx])
            w, loss = local.train(net=copy.deepcopy(net_glob).to(args.device))
            local_weights.append(w)
            local_losses.append(loss)
        net_glob.load_state_dict(fed_avg(local_weights))
        print(f"Round {rnd:3d}, average loss {sum(local_losses) / len(local_losses):.3f}")


if __name__ == "__main__":
    main()
