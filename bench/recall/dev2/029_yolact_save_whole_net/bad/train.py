import torch


def save_path(epoch, iteration, folder="weights/", name="yolact_base"):
    return "{}{}_{}_{}.pth".format(folder, name, epoch, iteration)


def train(yolact_net, net, data_loader, optimizer, num_epochs, save_interval):
    iteration = 0
    for epoch in range(num_epochs):
        for datum in data_loader:
            optimizer.zero_grad()
            losses = net(datum)
            loss = sum(losses[k] for k in losses)
            loss.backward()
            optimizer.step()
            iteration += 1
            if iteration % save_interval == 0:
                torch.save(yolact_net, save_path(epoch, iteration))  # expect: TCK402
