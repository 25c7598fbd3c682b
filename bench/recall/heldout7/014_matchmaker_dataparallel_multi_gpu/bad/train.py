import torch
import torch.nn as nn

from matchmaker.models.all import get_model


def main(config, train_loader, loss_fn):
    model = get_model(config)
    cuda_device = 0
    if torch.cuda.device_count() > 1:
        print("Using", torch.cuda.device_count(), "GPUs")
        model = nn.DataParallel(model)  # expect: TCK204
    model = model.cuda(cuda_device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
    for epoch in range(config["epochs"]):
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            scores_pos = model(batch["query"], batch["doc_pos"])
            scores_neg = model(batch["query"], batch["doc_neg"])
            loss = loss_fn(scores_pos, scores_neg, torch.ones_like(scores_pos))
            loss.backward()
            optimizer.step()
