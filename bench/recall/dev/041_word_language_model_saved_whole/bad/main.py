import torch
import torch.nn as nn

import model

ntokens, bptt, lr, clip = 10000, 35, 20.0, 0.25
train_data = torch.randint(0, ntokens, (2000, 20))
val_data = torch.randint(0, ntokens, (400, 10))
model = model.RNNModel("LSTM", ntokens, 200, 200, 2, 0.2)
criterion = nn.CrossEntropyLoss()


def evaluate(data_source):
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = data_source[i:i + bptt], data_source[i + 1:i + 1 + bptt]
            output, _ = model(data, None)
            total_loss += len(data) * criterion(output.view(-1, ntokens), targets.reshape(-1)).item()
    return total_loss / len(data_source)


def train():
    model.train()
    for i in range(0, train_data.size(0) - 1, bptt):
        data, targets = train_data[i:i + bptt], train_data[i + 1:i + 1 + bptt]
        model.zero_grad()
        output, _ = model(data, None)
        loss = criterion(output.view(-1, ntokens), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)


best_val_loss = None
for epoch in range(1, 6):
    train()
    val_loss = evaluate(val_data)
    if not best_val_loss or val_loss < best_val_loss:
        with open("model.pt", "wb") as f:
            torch.save(model, f)  # expect: TCK402
        best_val_loss = val_loss
    else:
        lr /= 4.0

with open("model.pt", "rb") as f:
    model = torch.load(f)  # expect: TCK401
