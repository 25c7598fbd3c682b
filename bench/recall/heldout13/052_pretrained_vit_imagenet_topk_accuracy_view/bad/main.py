import argparse

import torch
from torch import nn
from torchvision import datasets, transforms

from metrics import AverageMeter, accuracy


def build_model(num_classes):
    from pytorch_pretrained_vit import ViT

    model = ViT("B_16_imagenet1k", pretrained=True)
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    return model


def validate(loader, model, criterion, device):
    top1, top3 = AverageMeter("Acc@1"), AverageMeter("Acc@3")
    model.eval()
    with torch.no_grad():
        for images, target in loader:
            images, target = images.to(device), target.to(device)
            output = model(images)
            acc1, acc3 = accuracy(output, target, topk=(1, 3))
            top1.update(acc1.item(), images.size(0))
            top3.update(acc3.item(), images.size(0))
    return top1.avg, top3.avg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--num-classes", type=int, default=4)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([transforms.Resize((384, 384)), transforms.ToTensor()])
    val_set = datasets.ImageFolder(f"{args.data}/val", tf)
    loader = torch.utils.data.DataLoader(val_set, batch_size=32, num_workers=4)
    model = build_model(args.num_classes).to(device)
    print(validate(loader, model, nn.CrossEntropyLoss(), device))


if __name__ == "__main__":
    main()
