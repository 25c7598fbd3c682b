import argparse

import dgl
import torch

from model import STGCN_WAVE


def evaluate(model, loader, loss_fn):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            y_pred = model(x).view(len(x), -1)
            total += loss_fn(y_pred, y).item() * y.shape[0]
            n += y.shape[0]
    return total / n


def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n_route, n_his = 207, 144
    src, dst = torch.randint(0, n_route, (2, 1500))
    G = dgl.add_self_loop(dgl.graph((src, dst), num_nodes=n_route)).to(device)
    x = torch.randn(512, 1, n_his, n_route, device=device)
    y = torch.randn(512, n_route, device=device)
    train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:448], y[:448]), batch_size=32, shuffle=True)
    val_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[448:], y[448:]), batch_size=32)

    blocks = [1, 16, 32, 64, 32, 128]
    model = STGCN_WAVE(blocks, n_his, n_route, G, device, args.control_str).to(device)
    loss_fn = torch.nn.MSELoss()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.7)

    min_val_loss = float("inf")
    for epoch in range(1, args.epochs + 1):
        model.train()
        for xb, yb in train_loader:
            loss = loss_fn(model(xb).view(len(xb), -1), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        val_loss = evaluate(model, val_loader, loss_fn)
        if val_loss < min_val_loss:
            min_val_loss = val_loss
            torch.save(model.state_dict(), args.savemodelpath)
        print("epoch", epoch, ", validation loss:", val_loss)

    best_model = STGCN_WAVE(blocks, n_his, n_route, G, device, args.control_str).to(device)
    best_model.load_state_dict(torch.load(args.savemodelpath, weights_only=True))
    print("best validation loss:", evaluate(best_model, val_loader, loss_fn))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="STGCN_WAVE")
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--savemodelpath", default="stgcnwavemodel.pt")
    parser.add_argument("--control_str", default="TNTSTNTST")
    main(parser.parse_args())
