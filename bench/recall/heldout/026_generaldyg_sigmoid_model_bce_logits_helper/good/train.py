import torch
import torch.nn.functional as F

from transformer import TransformerBinaryClassifier


def criterion(logits, labels):
    loss_classify = F.binary_cross_entropy_with_logits(logits, labels, reduction="none")
    return torch.mean(loss_classify)


def train(loader, epochs, d_model=128):
    model = TransformerBinaryClassifier(d_model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for epoch in range(epochs):
        model.train()
        for raw_input, gnn_output, mask, labels in loader:
            logits = model(raw_input, gnn_output, mask)
            loss = criterion(logits, labels.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
