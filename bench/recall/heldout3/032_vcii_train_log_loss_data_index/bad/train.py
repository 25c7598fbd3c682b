import torch


def train(model, train_loader, optimizer, criterion, args):
    model.train()
    for batch_idx, (frames, ctx) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(frames, ctx)
        loss = criterion(output, frames)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("[TRAIN] Iter[{}]; LR: {}; Loss: {:.6f}".format(
                batch_idx, optimizer.param_groups[0]["lr"], loss.data[0]))  # expect: TCK115
