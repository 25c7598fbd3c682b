import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T

from models import get_backbone


def main(args, backbone=None):
    train_set = torchvision.datasets.CIFAR10(args.data_dir, train=True, transform=T.ToTensor(), download=False)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=256, shuffle=True, num_workers=args.num_workers)

    if backbone is None:
        backbone = get_backbone(args.backbone)
        save_dict = torch.load(args.eval_from, map_location='cpu', weights_only=False)
        backbone.load_state_dict({k[9:]: v for k, v in save_dict['state_dict'].items() if k.startswith('backbone.')})
    backbone = backbone.to(args.device)
    classifier = nn.Linear(backbone.output_dim, 10).to(args.device)
    optimizer = torch.optim.SGD(classifier.parameters(), lr=30.0, momentum=0.9)

    backbone.eval()
    for epoch in range(100):
        for images, labels in train_loader:
            with torch.no_grad():
                feature = backbone(images.to(args.device))
            loss = F.cross_entropy(classifier(feature), labels.to(args.device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
