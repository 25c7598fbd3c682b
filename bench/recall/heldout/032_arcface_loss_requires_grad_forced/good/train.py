import torch


def train(model, metric_fc, criterion, optimizer, scheduler, trainloader, device, max_epoch):
    for epoch in range(max_epoch):
        model.train()
        for data_input, label in trainloader:
            data_input = data_input.to(device)
            label = label.to(device).long()
            feature = model(data_input)
            output = metric_fc(feature, label)
            loss = criterion(output, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
