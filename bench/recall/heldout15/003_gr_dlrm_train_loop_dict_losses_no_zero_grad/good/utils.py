from typing import Optional

import torch
from torch.utils.data import DataLoader, Dataset

from model import RankingModel


class SyntheticInteractions(Dataset):
    def __init__(self, num_samples, num_items, history_len=50, num_candidates=8, num_tasks=2):
        self.history = torch.randint(0, num_items, (num_samples, history_len))
        self.candidates = torch.randint(0, num_items, (num_samples, num_candidates))
        self.labels = torch.randint(0, 2, (num_tasks, num_samples, num_candidates)).float()

    def __len__(self):
        return self.history.size(0)

    def __getitem__(self, idx):
        return self.history[idx], self.candidates[idx], self.labels[:, idx]


def collate(batch):
    history, candidates, labels = zip(*batch)
    labels = torch.stack(labels, dim=1)
    return torch.stack(history), torch.stack(candidates), labels, torch.ones_like(labels)


def make_model(num_items, device):
    return RankingModel(num_items).to(device)


def make_optimizer(model, lr=1e-3, weight_decay=0.0):
    dense = [p for n, p in model.named_parameters() if not n.startswith("item_emb")]
    sparse = list(model.item_emb.parameters())
    return torch.optim.Adam(
        [{"params": dense, "weight_decay": weight_decay}, {"params": sparse, "weight_decay": 0.0}],
        lr=lr,
    )


def make_train_test_dataloaders(batch_size, num_items, train_split=0.9):
    dataset = SyntheticInteractions(4096, num_items)
    train_size = round(train_split * len(dataset))
    train_set = torch.utils.data.Subset(dataset, range(train_size))
    test_set = torch.utils.data.Subset(dataset, range(train_size, len(dataset)))
    return (
        DataLoader(train_set, batch_size=batch_size, shuffle=True, collate_fn=collate, drop_last=True),
        DataLoader(test_set, batch_size=batch_size, collate_fn=collate, drop_last=True),
    )


def train_loop(
    model: torch.nn.Module,
    dataloader: DataLoader,
    optimizer: torch.optim.Optimizer,
    device: torch.device,
    num_epochs: int,
    num_batches: Optional[int] = None,
    log_frequency: int = 100,
) -> None:
    model.train()
    batch_idx = 0
    for _ in range(num_epochs):
        for history, candidates, labels, weights in dataloader:
            optimizer.zero_grad()
            history = history.to(device)
            candidates = candidates.to(device)
            labels = labels.to(device)
            weights = weights.to(device)
            aux_losses, preds, labels, weights = model(history, candidates, labels, weights)
            sum(aux_losses.values()).backward()
            optimizer.step()
            if batch_idx % log_frequency == 0:
                print({name: round(loss.item(), 4) for name, loss in aux_losses.items()})
            batch_idx += 1
            if num_batches is not None and batch_idx >= num_batches:
                break
        if num_batches is not None and batch_idx >= num_batches:
            break


@torch.no_grad()
def eval_loop(model, dataloader, device):
    model.eval()
    correct = 0
    total = 0
    for history, candidates, labels, weights in dataloader:
        _, preds, labels, _ = model(
            history.to(device), candidates.to(device), labels.to(device), weights.to(device)
        )
        correct += ((preds > 0.5).float() == labels).sum().item()
        total += labels.numel()
    print(f"accuracy: {correct / max(total, 1):.4f}")
