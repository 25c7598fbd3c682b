import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

from models import MLPClassifier

batch_size_train = 64
log_interval = 10


def bc_nll_loss(h1, h2, data, target, lambda_c=0.5):
    _, _, old_out = h1(data)
    _, _, new_out = h2(data)
    old_correct = old_out.argmax(dim=1).eq(target)
    base = F.nll_loss(new_out, target)
    if old_correct.any():
        dissonance = F.nll_loss(new_out[old_correct], target[old_correct])
    else:
        dissonance = new_out.sum() * 0.0
    return base + lambda_c * dissonance


def test(model, loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            _, _, output = model(data)
            test_loss += F.nll_loss(output, target, size_average=False).item()  # expect: TCK916
            correct += output.argmax(dim=1).eq(target).sum().item()
    test_loss /= len(loader.dataset)
    print(f"Test set: Avg. loss: {test_loss:.4f}, Accuracy: {correct}/{len(loader.dataset)}")


if __name__ == "__main__":
    data = TensorDataset(torch.randn(512, 1, 28, 28), torch.randint(0, 10, (512,)))
    train_loader = DataLoader(data, batch_size=batch_size_train, shuffle=True)
    test_loader = DataLoader(data, batch_size=256)
    h1, h2 = MLPClassifier(), MLPClassifier()
    h1.eval()
    optimizer = torch.optim.SGD(h2.parameters(), lr=0.01, momentum=0.5)
    for epoch in range(1, 3):
        h2.train()
        for batch_idx, (x, y) in enumerate(train_loader):
            optimizer.zero_grad()
            loss = bc_nll_loss(h1, h2, x, y)
            loss.backward()
            optimizer.step()
            if batch_idx % log_interval == 0:
                print(f"Train Epoch: {epoch} [{batch_idx * len(x)}]\tLoss: {loss.item():.6f}")
        test(h2, test_loader)
