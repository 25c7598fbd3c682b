import argparse
import os

import networkx as nx
import torch
from torch import optim
from torch.autograd import Variable
from torch.optim.lr_scheduler import MultiStepLR

import data
from baselines.graphvae.data import GraphAdjSampler
from baselines.graphvae.model import GraphVAE

CUDA = 2
LR_milestones = [500, 1000]


def build_model(args, max_num_nodes):
    return GraphVAE(max_num_nodes, 512, 256, max_num_nodes)


def train(args, dataloader, model):
    optimizer = optim.Adam(list(model.parameters()), lr=args.lr)
    scheduler = MultiStepLR(optimizer, milestones=LR_milestones, gamma=args.lr)

    model.train()
    for epoch in range(500):
        for batch_idx, data in enumerate(dataloader):
            model.zero_grad()
            features = Variable(data["features"].float()).cuda()
            adj_input = Variable(data["adj"].float()).cuda()

            loss = model(features, adj_input)
            print("Epoch: ", epoch, ", Iter: ", batch_idx, ", Loss: ", loss.item())
            loss.backward()

            optimizer.step()
            scheduler.step()


def arg_parse():
    parser = argparse.ArgumentParser(description="GraphVAE arguments.")
    parser.add_argument("--dataset", dest="dataset", help="Input dataset.")
    parser.add_argument("--lr", dest="lr", type=float, help="Learning rate.")
    parser.add_argument("--batch_size", dest="batch_size", type=int, help="Batch size.")
    parser.add_argument("--num_workers", dest="num_workers", type=int, help="Number of data-loading workers.")
    parser.add_argument("--max_num_nodes", dest="max_num_nodes", type=int,
                        help="Maximum number of nodes of a graph; -1 to take it from the training data.")
    parser.set_defaults(dataset="grid", lr=0.001, batch_size=1, num_workers=1, max_num_nodes=-1)
    return parser.parse_args()


def main():
    prog_args = arg_parse()
    os.environ["CUDA_VISIBLE_DEVICES"] = str(CUDA)

    if prog_args.dataset == "enzymes":
        graphs = data.Graph_load_batch(min_num_nodes=10, name="ENZYMES")
    else:
        graphs = [nx.grid_2d_graph(i, j) for i in range(2, 5) for j in range(2, 6)]
    num_graphs_raw = len(graphs)

    if prog_args.max_num_nodes == -1:
        max_num_nodes = max(g.number_of_nodes() for g in graphs)
    else:
        max_num_nodes = prog_args.max_num_nodes
        graphs = [g for g in graphs if g.number_of_nodes() <= max_num_nodes]
    print("Number of graphs removed due to upper-limit of number of nodes: ", num_graphs_raw - len(graphs))

    graphs_train = graphs[0:int(0.8 * len(graphs))]
    dataset = GraphAdjSampler(graphs_train, max_num_nodes)
    dataset_loader = torch.utils.data.DataLoader(dataset, batch_size=prog_args.batch_size,
                                                 num_workers=prog_args.num_workers)
    model = build_model(prog_args, max_num_nodes).cuda()
    train(prog_args, dataset_loader, model)


if __name__ == "__main__":
    main()
