import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from basemodel import WideAndDeep


def fit(train_set, sparse_vocab_sizes, dense_dim, epochs=10):
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    model = WideAndDeep(sparse_vocab_sizes, dense_dim, device=device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
    loader = DataLoader(train_set, batch_size=256, shuffle=True, num_workers=2)
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for sparse, dense, label in loader:
            sparse = {k: v.to(device) for k, v in sparse.items()}
            pred = model(sparse, dense.to(device))
            loss = F.binary_cross_entropy(pred.squeeze(1), label.float().to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}")
    torch.save(model.state_dict(), "wdl_criteo.pth")
    return model
