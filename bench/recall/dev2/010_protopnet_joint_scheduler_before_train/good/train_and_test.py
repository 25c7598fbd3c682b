import torch
import torch.nn.functional as F


def _train_or_test(model, dataloader, optimizer=None, class_specific=True, coefs=None, log=print):
    is_train = optimizer is not None
    total_correct = 0
    for image, label in dataloader:
        grad_req = torch.enable_grad() if is_train else torch.no_grad()
        with grad_req:
            output, min_distances = model(image)
            cross_entropy = F.cross_entropy(output, label)
            loss = cross_entropy + coefs["clst"] * min_distances.min(dim=1).values.mean()
        total_correct += (output.argmax(dim=1) == label).sum().item()
        if is_train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return total_correct / len(dataloader.dataset)


def train(model, dataloader, optimizer, class_specific=False, coefs=None, log=print):
    model.train()
    return _train_or_test(model, dataloader, optimizer=optimizer, class_specific=class_specific, coefs=coefs, log=log)


def joint(model, log=print):
    for p in model.parameters():
        p.requires_grad = True
