import argparse

import torch
import torch.distributed as dist
from apex.parallel import DistributedDataParallel as DDP
from torchvision.models.resnet import resnet18

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", default="resnet18.pth")
parser.add_argument("--mode", default="train")


def train(args, loader, epochs=10):
    dist.init_process_group("nccl", init_method="env://")
    model = resnet18(pretrained=False).to("cuda")
    model = DDP(model, delay_allreduce=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = criterion(model(images.cuda()), labels.cuda())
            loss.backward()
            optimizer.step()
    if dist.get_rank() == 0:
        torch.save(model.module.state_dict(), args.checkpoint)


def infer(args, images):
    model = resnet18(pretrained=False)
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu", weights_only=True))
    model.eval()
    with torch.no_grad():
        return model(images).argmax(1)


if __name__ == "__main__":
    args = parser.parse_args()
    if args.mode == "train":
        train(args, loader=None)
