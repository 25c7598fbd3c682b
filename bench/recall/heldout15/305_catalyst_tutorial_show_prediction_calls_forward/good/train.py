import collections
from typing import List

import numpy as np
import torch
from catalyst import dl
from torch.nn.functional import softmax
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from model import get_model

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def get_loaders(root: str, batch_size: int = 64, num_workers: int = 4):
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])
    valid_tf = transforms.Compose([
        transforms.Resize(256),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])
    loaders = collections.OrderedDict()
    loaders["train"] = DataLoader(datasets.ImageFolder(f"{root}/train", train_tf),
                                  batch_size=batch_size, shuffle=True, num_workers=num_workers)
    loaders["valid"] = DataLoader(datasets.ImageFolder(f"{root}/valid", valid_tf),
                                  batch_size=batch_size, shuffle=False, num_workers=num_workers)
    return loaders


def show_prediction(
    model: torch.nn.Module,
    class_names: List[str],
    images: List[torch.Tensor],
    device: torch.device,
) -> None:
    model.eval()
    with torch.no_grad():
        tensor_ = torch.stack(images).to(device)
        logits = model(tensor_)
        probabilities = softmax(logits, dim=1)
        predictions = probabilities.argmax(dim=1)
    for i, pred in enumerate(predictions.tolist()):
        print(f"image {i}: {class_names[pred]} ({probabilities[i, pred].item():.2f})")


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loaders = get_loaders("./artworks")
    class_names = loaders["train"].dataset.classes
    model = get_model("resnet18", num_classes=len(class_names))
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[9], gamma=0.3)

    runner = dl.SupervisedRunner(input_key="features", output_key="logits",
                                 target_key="targets", loss_key="loss")
    runner.train(
        model=model,
        criterion=criterion,
        optimizer=optimizer,
        scheduler=scheduler,
        loaders=loaders,
        logdir="./logs/classification",
        num_epochs=10,
        valid_loader="valid",
        valid_metric="loss",
        minimize_valid_metric=True,
        fp16=torch.cuda.is_available(),
        verbose=True,
    )

    rng = np.random.default_rng(0)
    valid_set = loaders["valid"].dataset
    picks = rng.choice(len(valid_set), size=8, replace=False)
    images = [valid_set[int(i)][0] for i in picks]
    show_prediction(model, class_names, images, device)


if __name__ == "__main__":
    main()
