import argparse
import time

import torch
import torch.nn.functional as F
import torch.optim as optim

from graph_utils import accuracy, load_citation_graph
from layers import GAT

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=500)
parser.add_argument("--lr", type=float, default=0.005)
parser.add_argument("--patience", type=int, default=50)
args = parser.parse_args()

adj, features, labels, idx_train, idx_val, idx_test = load_citation_graph()
model = GAT(nfeat=features.shape[1], nhid=8, nclass=int(labels.max()) + 1, dropout=0.6, alpha=0.2, nheads=8)
optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)

if torch.cuda.is_available():
    model.cuda()
    features, adj, labels = features.cuda(), adj.cuda(), labels.cuda()
    idx_train, idx_val, idx_test = idx_train.cuda(), idx_val.cuda(), idx_test.cuda()


def train(epoch):
    start = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()

    model.eval()
    with torch.no_grad():
        output = model(features, adj)
        loss_val = F.nll_loss(output[idx_val], labels[idx_val])
        acc_val = accuracy(output[idx_val], labels[idx_val])
    print(
        f"epoch {epoch + 1:04d} loss_train {loss_train.item():.4f} "
        f"loss_val {loss_val.item():.4f} acc_val {acc_val.item():.4f} ({time.time() - start:.2f}s)"
    )
    return loss_val.item()


def compute_test():
    model.eval()
    with torch.no_grad():
        output = model(features, adj)
        loss_test = F.nll_loss(output[idx_test], labels[idx_test])
        acc_test = accuracy(output[idx_test], labels[idx_test])
    print(
        "Test set results:",
        "loss= {:.4f}".format(loss_test.data[0]),  # expect: TCK115
        "accuracy= {:.4f}".format(acc_test.data[0]),
    )


best, bad_counter = float("inf"), 0
for epoch in range(args.epochs):
    val_loss = train(epoch)
    if val_loss < best:
        best, bad_counter = val_loss, 0
    else:
        bad_counter += 1
    if bad_counter == args.patience:
        break

compute_test()
