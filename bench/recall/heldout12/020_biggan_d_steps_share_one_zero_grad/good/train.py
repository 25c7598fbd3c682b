import torch
import torchvision
import torchvision.transforms as T

import train_fns
from BigGAN import Discriminator, G_D, Generator

config = {
    "batch_size": 64,
    "num_D_steps": 4,
    "num_D_accumulations": 1,
    "num_G_accumulations": 1,
    "n_classes": 10,
    "num_epochs": 100,
}


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    G = Generator(n_classes=config["n_classes"]).to(device)
    D = Discriminator(n_classes=config["n_classes"]).to(device)
    GD = G_D(G, D)

    dataset = torchvision.datasets.CIFAR10("data", train=True, download=True,
                                           transform=T.Compose([T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)]))
    # D takes num_D_steps * num_D_accumulations real batches per G step.
    loader_batch = config["batch_size"] * config["num_D_steps"] * config["num_D_accumulations"]
    loader = torch.utils.data.DataLoader(dataset, batch_size=loader_batch, shuffle=True, drop_last=True, num_workers=4)

    train = train_fns.GAN_training_function(G, D, GD, config, device)
    itr = 0
    for epoch in range(config["num_epochs"]):
        G.train()
        D.train()
        for x, y in loader:
            metrics = train(x.to(device), y.to(device))
            itr += 1
            if itr % 100 == 0:
                print(f"itr {itr}: " + ", ".join(f"{k}={v:.4f}" for k, v in metrics.items()))
        torch.save({"G": G.state_dict(), "D": D.state_dict(), "itr": itr}, "biggan_cifar.pth")


if __name__ == "__main__":
    main()
