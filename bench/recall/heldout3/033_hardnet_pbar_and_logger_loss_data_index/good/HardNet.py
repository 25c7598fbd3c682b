import torch
from tqdm import tqdm


def train(train_loader, model, optimizer, loss_fn, epoch, logger):
    model.train()
    pbar = tqdm(enumerate(train_loader))
    for batch_idx, (data_a, data_p) in pbar:
        data_a, data_p = data_a.cuda(), data_p.cuda()
        out_a, out_p = model(data_a), model(data_p)
        loss = loss_fn(out_a, out_p, margin=1.0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if batch_idx % 10 == 0:
            pbar.set_description(f"Train Epoch: {epoch} Loss: {loss.item():.6f}")
            logger.log_value("loss", loss.item())
