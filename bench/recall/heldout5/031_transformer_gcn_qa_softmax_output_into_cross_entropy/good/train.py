import torch
import torch.nn as nn

from model import TransformerGCNQA


def train(model: TransformerGCNQA, dataloader, epochs, lr=1e-4, device="cuda"):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for epoch in range(epochs):
        for query, candidates, graph, answer in dataloader:
            optimizer.zero_grad()
            pred = model(query.to(device), candidates.to(device), graph.to(device))
            loss = criterion(pred, answer.to(device))
            loss.backward()
            optimizer.step()
