import torch
import torch.nn.functional as F
import torch.optim as optim
import torchvision.models as models

from xy_dataset import XYDataset

NUM_EPOCHS = 70
BEST_MODEL_PATH = "best_steering_model_xy.pth"

dataset = XYDataset("dataset_xy")
num_test = int(0.1 * len(dataset))
train_dataset, test_dataset = torch.utils.data.random_split(dataset, [len(dataset) - num_test, num_test])
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=8, shuffle=True, num_workers=1)
test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=8, shuffle=True, num_workers=1)

model = models.resnet18(weights="IMAGENET1K_V1")
model.fc = torch.nn.Linear(512, 2)
device = torch.device("cuda")
model = model.to(device)

optimizer = optim.Adam(model.parameters())
best_loss = 1e9

for epoch in range(NUM_EPOCHS):
    model.train()
    train_loss = 0.0
    for images, labels in iter(train_loader):
        images = images.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        outputs = model(images)
        loss = F.mse_loss(outputs, labels)
        train_loss += float(loss)
        loss.backward()
        optimizer.step()
    train_loss /= len(train_loader)

    model.eval()
    test_loss = 0.0
    with torch.no_grad():
        for images, labels in iter(test_loader):
            images = images.to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = F.mse_loss(outputs, labels)
            test_loss += float(loss)
    test_loss /= len(test_loader)

    print("%f, %f" % (train_loss, test_loss))
    if test_loss < best_loss:
        torch.save(model.state_dict(), BEST_MODEL_PATH)
        best_loss = test_loss
