import argparse
import os
import time
from collections import OrderedDict, defaultdict

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import MNIST

from models import VAE


def main(args):
    ts = time.time()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    datasets = OrderedDict()
    datasets["train"] = MNIST(root="data", train=True, transform=transforms.ToTensor(), download=True)

    def loss_fn(recon_x, x, mean, log_var):
        bce = F.binary_cross_entropy(recon_x, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp())
        return bce + kld

    vae = VAE(
        encoder_layer_sizes=args.encoder_layer_sizes,
        latent_size=args.latent_size,
        decoder_layer_sizes=args.decoder_layer_sizes,
        conditional=args.conditional,
        num_labels=10 if args.conditional else 0,
    ).to(device)
    optimizer = torch.optim.Adam(vae.parameters(), lr=args.learning_rate)

    tracker_global = defaultdict(list)
    for epoch in range(args.epochs):
        tracker_epoch = defaultdict(lambda: defaultdict(dict))
        for split, dataset in datasets.items():
            data_loader = DataLoader(dataset=dataset, batch_size=args.batch_size, shuffle=split == "train")
            for iteration, (x, y) in enumerate(data_loader):
                x = x.to(device).view(-1, 784)
                y = y.to(device).view(-1, 1)

                if args.conditional:
                    recon_x, mean, log_var, z = vae(x, y)
                else:
                    recon_x, mean, log_var, z = vae(x)

                for i, yi in enumerate(y):
                    idx = len(tracker_epoch)
                    tracker_epoch[idx]["x"] = z[i, 0].item()
                    tracker_epoch[idx]["y"] = z[i, 1].item()
                    tracker_epoch[idx]["label"] = yi.item()

                loss = loss_fn(recon_x, x, mean, log_var)

                if split == "train":
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()

                tracker_global["loss"].append(loss.detach() / x.size(0))
                tracker_global["it"].append(epoch * len(data_loader) + iteration)

                if iteration % args.print_every == 0 or iteration == len(data_loader) - 1:
                    print("Batch %04d/%i, Loss %9.4f" % (iteration, len(data_loader) - 1, loss.item()))

                    with torch.no_grad():
                        if args.conditional:
                            c = torch.arange(0, 10, device=device).long().view(-1, 1)
                            samples = vae.inference(n=c.size(0), c=c)
                        else:
                            samples = vae.inference(n=10)

                    plt.figure(figsize=(5, 10))
                    for p in range(10):
                        plt.subplot(5, 2, p + 1)
                        plt.imshow(samples[p].view(28, 28).cpu().numpy())
                        plt.axis("off")
                    os.makedirs(os.path.join(args.fig_root, str(ts)), exist_ok=True)
                    plt.savefig(os.path.join(args.fig_root, str(ts), "E%iI%i.png" % (epoch, iteration)), dpi=300)
                    plt.clf()
                    plt.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=0.001)
    parser.add_argument("--encoder_layer_sizes", type=list, default=[784, 256])
    parser.add_argument("--decoder_layer_sizes", type=list, default=[256, 784])
    parser.add_argument("--latent_size", type=int, default=2)
    parser.add_argument("--print_every", type=int, default=100)
    parser.add_argument("--fig_root", type=str, default="figs")
    parser.add_argument("--conditional", action="store_true")
    main(parser.parse_args())
