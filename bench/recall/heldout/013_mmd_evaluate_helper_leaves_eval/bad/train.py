import torch


def evaluate(model, loader, criterion):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for batch in loader:
            total += criterion(model(batch.text), batch.target).item()
    return total / len(loader)


def train(model, train_loader, val_loader, optimizer, criterion, epochs, eval_every):
    model.train()
    step = 0
    for epoch in range(epochs):
        for batch in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(batch.text), batch.target)
            loss.backward()
            optimizer.step()
            step += 1
            if step % eval_every == 0:
                val_loss = evaluate(model, val_loader, criterion)  # expect: TCK106
                print(f"step {step}: validation loss {val_loss:.4f}")
