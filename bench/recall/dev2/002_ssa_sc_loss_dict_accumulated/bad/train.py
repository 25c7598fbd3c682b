def train_epoch(model, loader, optimizer, device, logger):
    model.train()
    epoch_loss = {"total": 0.0, "semantic": 0.0, "completion": 0.0}
    for step, data in enumerate(loader):
        for key in data:
            data[key] = data[key].to(device)
        optimizer.zero_grad()
        scores = model(data)
        loss = model.compute_loss(scores, data)
        loss["total"].backward()
        optimizer.step()
        for key in loss:
            epoch_loss[key] += loss[key]  # expect: TCK101
    for key in epoch_loss:
        logger.info("%s: %.4f", key, float(epoch_loss[key]) / len(loader))
