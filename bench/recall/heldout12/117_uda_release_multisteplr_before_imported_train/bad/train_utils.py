import torch


def evaluate(loader, model, device):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            predicted = model(inputs).argmax(dim=1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    model.train()
    return 1 - correct / total


def train(model, rot_head, criterion, optimizer, src_loader, tgt_test_loader, device, test_every=100):
    model.train()
    rot_head.train()
    stats = []
    for batch_idx, (inputs, labels) in enumerate(src_loader):
        inputs, labels = inputs.to(device), labels.to(device)
        k = torch.randint(0, 4, (inputs.size(0),), device=device)
        rotated = torch.stack([torch.rot90(img, int(r), dims=(1, 2)) for img, r in zip(inputs, k)])

        optimizer.zero_grad()
        loss = criterion(model(inputs), labels) + criterion(rot_head(model.features(rotated)), k)
        loss.backward()
        optimizer.step()

        if batch_idx % test_every == 0:
            err = evaluate(tgt_test_loader, model, device)
            stats.append((batch_idx, loss.item(), err))
            print(f"iter {batch_idx}/{len(src_loader)} loss {loss.item():.3f} target err {err * 100:.2f}")
    return stats
