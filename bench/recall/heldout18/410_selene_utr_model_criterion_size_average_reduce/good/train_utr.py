import torch
from torch.utils.data import DataLoader, TensorDataset

import utr_model


def run(sequences, targets, epochs=10, lr=1e-3, batch_size=128):
    """Minimal version of selene's TrainModel loop driving a model file's hooks."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = utr_model.UTRModel(sequence_length=sequences.shape[-1], n_targets=targets.shape[-1]).to(device)
    loss_fn = utr_model.criterion()
    optim_class, optim_kwargs = utr_model.get_optimizer(lr)
    optimizer = optim_class(model.parameters(), **optim_kwargs)
    loader = DataLoader(TensorDataset(sequences, targets), batch_size=batch_size, shuffle=True)

    for epoch in range(epochs):
        model.train()
        total = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: train loss {total / len(loader):.4f}")
    return model
