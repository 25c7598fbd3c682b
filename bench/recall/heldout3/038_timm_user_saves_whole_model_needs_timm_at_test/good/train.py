import timm
import torch
import torch.nn as nn


def train(train_loader, num_classes, epochs, path):
    model = timm.create_model("resnet50", pretrained=True, num_classes=num_classes).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        for images, labels in train_loader:
            images, labels = images.cuda(), labels.cuda()
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), path)
