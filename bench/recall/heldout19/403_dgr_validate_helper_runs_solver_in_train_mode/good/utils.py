import torch
from torch.utils.data import DataLoader


def get_data_loader(dataset, batch_size, cuda=False):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True,
                      **({"num_workers": 1, "pin_memory": True} if cuda else {}))


@torch.no_grad()
def validate(model, dataset, test_size=256, cuda=False, verbose=True):
    was_training = model.training
    model.eval()
    data_loader = get_data_loader(dataset, 32, cuda=cuda)
    total_tested = 0
    total_correct = 0
    for data, labels in data_loader:
        if total_tested >= test_size:
            break
        if cuda:
            data, labels = data.cuda(), labels.cuda()
        scores = model(data)
        _, predicted = torch.max(scores, 1)
        total_correct += (predicted == labels).sum().item()
        total_tested += len(data)
    model.train(was_training)
    precision = total_correct / total_tested
    if verbose:
        print("=> precision: {:.3f}".format(precision))
    return precision
