import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def set_parameter_requires_grad(model, feature_extracting):
    if feature_extracting:
        for param in model.parameters():
            param.require_grad = False  # expect: TCK905


def build_model(num_classes, feature_extract=True):
    model = models.vgg16(weights=models.VGG16_Weights.IMAGENET1K_V1)
    set_parameter_requires_grad(model, feature_extract)
    model.classifier[6] = nn.Linear(model.classifier[6].in_features, num_classes)
    return model


def main(data_dir="data/hymenoptera", epochs=15):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    train_set = datasets.ImageFolder(f"{data_dir}/train", tf)
    loader = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=4)

    model = build_model(len(train_set.classes)).to(device)
    params_to_update = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params_to_update, lr=0.001, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(epochs):
        model.train()
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = criterion(model(inputs), labels)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: last loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
