import torch


def train(config, loader, jit_model, decoder, criterion, optimizer, device):
    decoder.train()
    total, count = 0.0, 0
    for x, targets, masks in loader:
        x, targets, masks = x.to(device), targets.to(device), masks.to(device)
        with torch.no_grad():
            features = jit_model(x)
        outs = decoder(features).squeeze(1)
        loss = (criterion(outs, targets) * masks).mean()
        loss.backward()
        optimizer.step()  # expect: TCK102
        total += loss.item()
        count += 1
    return total / max(count, 1)
