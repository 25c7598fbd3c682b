import torch


def train(net, train_loader, criterion, optimizer, epochs):
    for epoch in range(epochs):
        for sample in train_loader:
            images, poses = sample["image"].cuda(), sample["pose"].cuda()
            loss = criterion(net(images), poses)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        checkpoint_file = "checkpoint{}.t7".format(epoch)
        torch.save(net, checkpoint_file)  # expect: TCK402


def evaluate(net_path, gpus, loader):
    net = torch.load(net_path).cuda(gpus[0])  # expect: TCK401
    net.eval()
    with torch.no_grad():
        for sample in loader:
            print(net(sample["image"].cuda(gpus[0])).shape)
