import argparse

import dgl
import numpy as np
import torch
import torch.nn as nn

from model import STGCN_WAVE

parser = argparse.ArgumentParser(description="STGCN_WAVE")
parser.add_argument("--lr", default=0.001, type=float)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--batch_size", type=int, default=50)
parser.add_argument("--control_str", default="TNTSTNTST")
parser.add_argument("--savemodelpath", default="stgcnwavemodel.pt")
args = parser.parse_args()

device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
n_route, n_his, drop_prob = 228, 12, 0
blocks = [1, 16, 32, 64, 32, 128]
G = dgl.rand_graph(n_route, 1500).to(device)

x = torch.randn(2000, 1, n_his, n_route, device=device)
y = torch.randn(2000, n_route, device=device)
train_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:1600], y[:1600]), args.batch_size, shuffle=True)
val_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[1600:], y[1600:]), args.batch_size)


def evaluate_model(model, loss, data_iter):
    model.eval()
    l_sum, n = 0.0, 0
    with torch.no_grad():
        for x, y in data_iter:
            l = loss(model(x).view(len(x), -1), y)
            l_sum += l.item() * y.shape[0]
            n += y.shape[0]
    return l_sum / n


loss = nn.MSELoss()
model = STGCN_WAVE(blocks, n_his, n_route, G, drop_prob, len(args.control_str), device, args.control_str).to(device)
optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.7)

min_val_loss = np.inf
for epoch in range(1, args.epochs + 1):
    l_sum, n = 0.0, 0
    model.train()
    for x, y in train_iter:
        y_pred = model(x).view(len(x), -1)
        l = loss(y_pred, y)
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
        l_sum += l.item() * y.shape[0]
        n += y.shape[0]
    scheduler.step()
    val_loss = evaluate_model(model, loss, val_iter)
    if val_loss < min_val_loss:
        min_val_loss = val_loss
        torch.save(model.state_dict(), args.savemodelpath)
    print("epoch", epoch, ", train loss:", l_sum / n, ", validation loss:", val_loss)

best_model = STGCN_WAVE(blocks, n_his, n_route, G, drop_prob, len(args.control_str), device, args.control_str).to(device)
best_model.load_state_dict(torch.load(args.savemodelpath, weights_only=True))
print("test loss:", evaluate_model(best_model, loss, val_iter))
