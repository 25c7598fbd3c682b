# PyTorch basics (course notebook exported as a script): dataset, loader, model, loss, optimizer, full training.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import SGD
from torch.utils.data import DataLoader, Dataset


class MyDataset(Dataset):
    """Random points on y = 2x^2 + 3x + 17."""

    def __init__(self, size):
        self.x = torch.rand(size) * 2 - 1
        self.y = 2 * self.x ** 2 + 3 * self.x + 17

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


def collate_fn(batch):
    """Turn a list of (x, y) scalars into ((batch, 1), (batch, 1)) tensors."""
    xs = [[x] for x, _ in batch]
    ys = [[y] for _, y in batch]
    return [torch.tensor(xs), torch.tensor(ys)]


class MyModel(nn.Module):
    def __init__(self, in_dim, hid_dim, out_dim):
        super().__init__()
        self.layer1 = nn.Linear(in_features=in_dim, out_features=hid_dim)
        self.layer2 = nn.Linear(in_features=hid_dim, out_features=out_dim)

    def forward(self, batch_x):
        return self.layer2(F.relu(self.layer1(batch_x)))


my_dataset = MyDataset(10)
my_data_loader = DataLoader(my_dataset, batch_size=3, shuffle=True, collate_fn=collate_fn)
my_model = MyModel(in_dim=1, hid_dim=10, out_dim=1)

# Loss: backpropagation only, to show where gradients come from
criterion = nn.MSELoss()
for batch_x, batch_y in my_data_loader:
    pred_y = my_model(batch_x)
    loss = criterion(pred_y, batch_y)
    print(loss)
    loss.backward()

# Optimization: gradient descent on the model's parameters
optimizer = SGD(my_model.parameters(), lr=0.0001)
for batch_x, batch_y in my_data_loader:
    pred_y = my_model(batch_x)
    loss = criterion(pred_y, batch_y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()

# Putting it together: train for a few epochs, report train and test error after each
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
train_dataset = MyDataset(1000)
test_dataset = MyDataset(500)
batch_size = 50
n_epoch = 5
hid_dim = 10
train_data_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn)
test_data_loader = DataLoader(test_dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn)

model = MyModel(in_dim=1, hid_dim=hid_dim, out_dim=1).to(device)
criterion = nn.MSELoss()
optimizer = SGD(model.parameters(), lr=0.0001)

for epoch in range(n_epoch):
    for batch_x, batch_y in train_data_loader:
        batch_x = batch_x.to(device)
        batch_y = batch_y.to(device)
        pred_y = model(batch_x)
        loss = criterion(pred_y, batch_y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

    with torch.no_grad():
        total_loss = 0
        for batch_x, batch_y in train_data_loader:
            pred_y = model(batch_x.to(device))
            total_loss += float(criterion(pred_y, batch_y.to(device))) / len(train_data_loader)
        print(f"Epoch {epoch}, training loss: {total_loss}")

        total_loss = 0
        for batch_x, batch_y in test_data_loader:
            pred_y = model(batch_x.to(device))
            total_loss += float(criterion(pred_y, batch_y.to(device))) / len(test_data_loader)
        print(f"Epoch {epoch}, testing loss: {total_loss}")
