import torch
import torch.nn.functional as F
from torch.utils.data import TensorDataset

from models import Solver
from utils import get_data_loader, validate


def train_task(solver, train_dataset, test_datasets, iterations=1000, batch_size=32,
               eval_log_interval=100, cuda=False):
    optimizer = torch.optim.Adam(solver.parameters(), lr=1e-3, betas=(0.5, 0.999))
    loader = get_data_loader(train_dataset, batch_size, cuda=cuda)
    data_stream = iter(loader)
    solver.train()
    for it in range(1, iterations + 1):
        try:
            x, y = next(data_stream)
        except StopIteration:
            data_stream = iter(loader)
            x, y = next(data_stream)
        if cuda:
            x, y = x.cuda(), y.cuda()
        optimizer.zero_grad()
        loss = F.cross_entropy(solver(x), y)
        loss.backward()
        optimizer.step()
        if it % eval_log_interval == 0:
            precs = [validate(solver, d, test_size=256, cuda=cuda, verbose=False) for d in test_datasets]
            print(f"iteration {it}: loss {loss.item():.4f} precision {sum(precs) / len(precs):.3f}")


if __name__ == "__main__":
    def fake(n):
        return TensorDataset(torch.randn(n, 1, 32, 32), torch.randint(0, 10, (n,)))
    solver = Solver()
    train_task(solver, fake(512), [fake(256), fake(256)])
