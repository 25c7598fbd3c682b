import torch
from torch.utils.data import DataLoader


def train(save_dir, model, train_dataset, optimizer, loss_fn, epochs=25, batch_size=1, num_workers=0):
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        model.cuda()
    train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers)
    for epoch in range(epochs):
        model.train()
        for t in train_loader:
            X, y = t["X"], t["y"]
            if use_cuda:
                X = X.cuda()
                y = y.cuda()
            targets = y.squeeze(0)
            outputs = model(X)
            loss = loss_fn(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), f"{save_dir}/final.pth")
