import argparse

import torch
import torch_geometric.transforms as T
from ogb.linkproppred import Evaluator, PygLinkPropPredDataset
from torch.utils.data import DataLoader

from models import SAGE, EdgeScorer


def train(model, scorer, data, split_edge, optimizer, batch_size):
    model.train()
    scorer.train()
    pos_edge = split_edge["train"]["edge"].to(data.x.device)
    neg_edge = split_edge["train"]["edge_neg"].to(data.x.device)

    total_loss = total_examples = 0
    for perm in DataLoader(range(pos_edge.size(0)), batch_size, shuffle=True):
        optimizer.zero_grad()
        h = model(data.x, data.adj_t)
        pos = pos_edge[perm].t()
        neg = neg_edge[perm].t()
        pos_out = scorer(h[pos[0]], h[pos[1]])
        neg_out = scorer(h[neg[0]], h[neg[1]])
        loss = -torch.log(pos_out + 1e-15).mean() - torch.log(1 - neg_out + 1e-15).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        torch.nn.utils.clip_grad_norm_(scorer.parameters(), 1.0)
        optimizer.step()
        total_loss += loss.item() * pos_out.size(0)
        total_examples += pos_out.size(0)
    return total_loss / total_examples


@torch.no_grad()
def test(model, scorer, data, split_edge, evaluator, batch_size):
    model.eval()
    h = model(data.x, data.adj_t)

    results = {}
    for split in ("train", "valid", "test"):
        preds = {}
        for kind in ("edge", "edge_neg"):
            edges = split_edge[split][kind].to(h.device)
            chunks = []
            for perm in DataLoader(range(edges.size(0)), batch_size):
                e = edges[perm].t()
                chunks.append(scorer(h[e[0]], h[e[1]]).squeeze().cpu())  # expect: TCK114
            preds[kind] = torch.cat(chunks, dim=0)
        results[split] = evaluator.eval({"y_pred_pos": preds["edge"], "y_pred_neg": preds["edge_neg"]})["rocauc"]
    return results["train"], results["valid"], results["test"]


def main():
    parser = argparse.ArgumentParser(description="ogbl-vessel (GraphSAGE)")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--num_layers", type=int, default=3)
    parser.add_argument("--hidden_channels", type=int, default=256)
    parser.add_argument("--dropout", type=float, default=0.5)
    parser.add_argument("--batch_size", type=int, default=64 * 1024)
    parser.add_argument("--lr", type=float, default=1e-5)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    device = torch.device(f"cuda:{args.device}" if torch.cuda.is_available() else "cpu")
    dataset = PygLinkPropPredDataset("ogbl-vessel", transform=T.ToSparseTensor())
    data = dataset[0]
    for c in range(3):
        data.x[:, c] = torch.nn.functional.normalize(data.x[:, c], dim=0)
    data.x = data.x.to(torch.float)
    data = data.to(device)
    split_edge = dataset.get_edge_split()

    model = SAGE(data.num_features, args.hidden_channels, args.hidden_channels, args.num_layers, args.dropout).to(device)
    scorer = EdgeScorer(args.hidden_channels, args.hidden_channels, args.num_layers, args.dropout).to(device)
    evaluator = Evaluator(name="ogbl-vessel")

    for run in range(args.runs):
        model.reset_parameters()
        scorer.reset_parameters()
        optimizer = torch.optim.Adam(list(model.parameters()) + list(scorer.parameters()), lr=args.lr)
        for epoch in range(1, args.epochs + 1):
            loss = train(model, scorer, data, split_edge, optimizer, args.batch_size)
            tr, va, te = test(model, scorer, data, split_edge, evaluator, args.batch_size)
            print(f"run {run:02d} epoch {epoch:03d} loss {loss:.4f} train {tr:.4f} valid {va:.4f} test {te:.4f}")


if __name__ == "__main__":
    main()
