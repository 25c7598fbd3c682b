import torch

from model import build_net


def train(net, train_loader, criterion, optimizer, epochs):
    for epoch in range(epochs):
        for sample in train_loader:
            images, poses = sample["image"].cuda(), sample["pose"].cuda()
            loss = criterion(net(images), poses)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        checkpoint_file = "checkpoint{}.t7".format(epoch)
        torch.save(net.state_dict(), checkpoint_file)


def evaluate(net_path, gpus, loader):
    net = build_net()
    net.load_state_dict(torch.load(net_path, map_location='cpu', weights_only=True))
    net = net.cuda(gpus[0])
    net.eval()
    with torch.no_grad():
        for sample in loader:
            print(net(sample["image"].cuda(gpus[0])).shape)
