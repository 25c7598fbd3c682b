import torch


def fit_one_epoch(net, yolo_losses, optimizer, epoch, epoch_size, epoch_size_val, gen, genval, cuda):
    total_loss = 0
    val_loss = 0

    net.train()
    for iteration, (images, targets) in enumerate(gen):
        if iteration >= epoch_size:
            break
        if cuda:
            images = images.cuda()
        optimizer.zero_grad()
        outputs = net(images)
        losses = []
        for i in range(3):
            loss_item = yolo_losses[i](outputs[i], targets)
            losses.append(loss_item[0])
        loss = sum(losses)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()

    net.eval()
    with torch.no_grad():
        for iteration, (images_val, targets_val) in enumerate(genval):
            if iteration >= epoch_size_val:
                break
            if cuda:
                images_val = images_val.cuda()
            outputs = net(images_val)
            losses = []
            for i in range(3):
                loss_item = yolo_losses[i](outputs[i], targets_val)
                losses.append(loss_item[0])
            loss = sum(losses)
            val_loss += loss.item()

    print("Epoch", epoch + 1, "train", total_loss / epoch_size, "val", val_loss / epoch_size_val)
