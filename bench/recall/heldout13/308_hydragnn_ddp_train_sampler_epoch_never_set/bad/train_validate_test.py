import torch
import torch.nn.functional as F


def train(loader, model, optimizer, device):
    model.train()
    total, count = 0.0, 0
    for data in loader:
        data = data.to(device)
        optimizer.zero_grad()
        pred = model(data.x, data.edge_index, data.batch)
        loss = F.mse_loss(pred, data.y.view(pred.shape))
        loss.backward()
        optimizer.step()
        total += loss.item() * data.num_graphs
        count += data.num_graphs
    return (total / max(count, 1)) ** 0.5


@torch.no_grad()
def validate(loader, model, device):
    model.eval()
    total, count = 0.0, 0
    for data in loader:
        data = data.to(device)
        pred = model(data.x, data.edge_index, data.batch)
        total += F.mse_loss(pred, data.y.view(pred.shape), reduction="sum").item()
        count += data.num_graphs
    return (total / max(count, 1)) ** 0.5


def train_validate_test(model, optimizer, train_loader, val_loader, test_loader, scheduler, config, device):
    num_epoch = config["Training"]["num_epoch"]
    for epoch in range(num_epoch):
        train_rmse = train(train_loader, model, optimizer, device)
        val_rmse = validate(val_loader, model, device)
        test_rmse = validate(test_loader, model, device)
        scheduler.step(val_rmse)
        print(f"Epoch: {epoch:02d}, Train RMSE: {train_rmse:.6f}, Val RMSE: {val_rmse:.6f}, Test RMSE: {test_rmse:.6f}")
