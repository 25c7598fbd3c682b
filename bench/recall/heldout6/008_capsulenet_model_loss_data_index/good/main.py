import torch
from capsnet import CapsNet


def train(capsule_net, optimizer, train_loader, epoch):
    capsule_net.train()
    train_loss = 0
    for batch_id, (data, target) in enumerate(train_loader):
        target = torch.eye(10).index_select(dim=0, index=target)
        optimizer.zero_grad()
        output, reconstructions = capsule_net(data)
        loss = capsule_net.loss(data, output, target, reconstructions)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    return train_loss / len(train_loader)


if __name__ == "__main__":
    net = CapsNet()
    train(net, torch.optim.Adam(net.parameters()), [], 0)
