import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

import train_and_test as tnt


class PPNet(nn.Module):
    def __init__(self, num_classes=200, num_prototypes=2000, proto_dim=128):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(64, 256, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.add_on_layers = nn.Sequential(nn.Conv2d(256, proto_dim, 1), nn.Sigmoid())
        self.prototype_vectors = nn.Parameter(torch.rand(num_prototypes, proto_dim))
        self.last_layer = nn.Linear(num_prototypes, num_classes, bias=False)

    def forward(self, x):
        z = self.add_on_layers(self.features(x)).flatten(2).transpose(1, 2)
        distances = torch.cdist(z, self.prototype_vectors.unsqueeze(0).expand(z.size(0), -1, -1))
        min_distances = distances.min(dim=1).values
        similarity = torch.log((min_distances + 1) / (min_distances + 1e-4))
        return self.last_layer(similarity), min_distances


def main(num_train_epochs=30, num_warm_epochs=5):
    tf = transforms.Compose([transforms.Resize((224, 224)), transforms.ToTensor()])
    train_loader = DataLoader(datasets.ImageFolder("./datasets/cub200/train", tf), batch_size=80,
                              shuffle=True, num_workers=4)
    test_loader = DataLoader(datasets.ImageFolder("./datasets/cub200/test", tf), batch_size=100,
                             shuffle=False, num_workers=4)

    ppnet = PPNet().cuda()
    joint_optimizer = torch.optim.Adam([
        {"params": ppnet.features.parameters(), "lr": 1e-4, "weight_decay": 1e-3},
        {"params": ppnet.add_on_layers.parameters(), "lr": 3e-3, "weight_decay": 1e-3},
        {"params": ppnet.prototype_vectors, "lr": 3e-3},
    ])
    joint_lr_scheduler = torch.optim.lr_scheduler.StepLR(joint_optimizer, step_size=5, gamma=0.1)
    warm_optimizer = torch.optim.Adam([
        {"params": ppnet.add_on_layers.parameters(), "lr": 3e-3, "weight_decay": 1e-3},
        {"params": ppnet.prototype_vectors, "lr": 3e-3},
    ])

    best = 0.0
    for epoch in range(num_train_epochs):
        print(f"epoch: {epoch}")
        if epoch < num_warm_epochs:
            tnt.warm_only(model=ppnet)
            tnt.train(model=ppnet, dataloader=train_loader, optimizer=warm_optimizer)
        else:
            tnt.joint(model=ppnet)
            joint_lr_scheduler.step()  # expect: TCK104
            tnt.train(model=ppnet, dataloader=train_loader, optimizer=joint_optimizer)
        acc = tnt.test(model=ppnet, dataloader=test_loader)
        if acc > best:
            best = acc
            torch.save(ppnet.state_dict(), f"./saved_models/{epoch}nopush.pth")


if __name__ == "__main__":
    main()
