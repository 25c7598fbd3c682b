import torch
import torch.nn.functional as F


def _run(model, dataloader, optimizer=None):
    is_train = optimizer is not None
    total, correct, total_loss = 0, 0, 0.0
    for images, labels in dataloader:
        images, labels = images.cuda(), labels.cuda()
        with torch.set_grad_enabled(is_train):
            logits, min_distances = model(images)
            loss = F.cross_entropy(logits, labels) + 0.8 * min_distances.min(dim=1).values.mean()
        if is_train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += labels.size(0)
        correct += (logits.argmax(dim=1) == labels).sum().item()
        total_loss += loss.item()
    return correct / total


def train(model, dataloader, optimizer, log=print):
    log("\ttrain")
    model.train()
    return _run(model, dataloader, optimizer=optimizer)


def test(model, dataloader, log=print):
    log("\ttest")
    model.eval()
    return _run(model, dataloader, optimizer=None)


def warm_only(model, log=print):
    for p in model.features.parameters():
        p.requires_grad = False
    for p in model.add_on_layers.parameters():
        p.requires_grad = True
    model.prototype_vectors.requires_grad = True
    log("\twarm")


def joint(model, log=print):
    for p in model.features.parameters():
        p.requires_grad = True
    for p in model.add_on_layers.parameters():
        p.requires_grad = True
    model.prototype_vectors.requires_grad = True
    log("\tjoint")
