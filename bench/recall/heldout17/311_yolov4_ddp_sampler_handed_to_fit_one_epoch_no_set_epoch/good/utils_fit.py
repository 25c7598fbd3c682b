import torch


def fit_one_epoch(model_train, yolo_loss, optimizer, epoch, gen, gen_val, cuda, fp16, scaler, local_rank=0):
    loss, val_loss = 0.0, 0.0
    model_train.train()
    for iteration, (images, targets) in enumerate(gen):
        if cuda:
            images = images.cuda(local_rank)
            targets = [ann.cuda(local_rank) for ann in targets]
        optimizer.zero_grad()
        if not fp16:
            outputs = model_train(images)
            loss_value = sum(yolo_loss(l, outputs[l], targets) for l in range(len(outputs)))
            loss_value.backward()
            optimizer.step()
        else:
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                outputs = model_train(images)
                loss_value = sum(yolo_loss(l, outputs[l], targets) for l in range(len(outputs)))
            scaler.scale(loss_value).backward()
            scaler.step(optimizer)
            scaler.update()
        loss += loss_value.item()

    model_train.eval()
    with torch.no_grad():
        for images, targets in gen_val:
            if cuda:
                images = images.cuda(local_rank)
                targets = [ann.cuda(local_rank) for ann in targets]
            outputs = model_train(images)
            val_loss += sum(yolo_loss(l, outputs[l], targets) for l in range(len(outputs))).item()
    if local_rank == 0:
        print(f"Epoch {epoch + 1}: train loss {loss / max(1, len(gen)):.3f}, val loss {val_loss / max(1, len(gen_val)):.3f}")
