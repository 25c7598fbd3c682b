import math

import torch

from model import AutoEncoder, MSEloss


def train(train_loader, n_items, epochs=12, device="cuda", aug_step=1):
    rencoder = AutoEncoder([n_items, 512, 512, 1024], nl_type="selu", dp_drop_prob=0.8).to(device)
    optimizer = torch.optim.SGD(rencoder.parameters(), lr=0.005, momentum=0.9, weight_decay=0.001)
    for epoch in range(epochs):
        rencoder.train()
        total, denom = 0.0, 0.0
        for ratings in train_loader:
            inputs = ratings.to(device)
            optimizer.zero_grad()
            outputs = rencoder(inputs)
            loss, num_ratings = MSEloss(outputs, inputs)
            loss = loss / num_ratings
            loss.backward()
            optimizer.step()
            total += loss.item()
            denom += 1
            # dense re-feeding: train again on the model's own output
            for _ in range(aug_step):
                inputs = outputs.detach()
                optimizer.zero_grad()
                outputs = rencoder(inputs)
                loss, num_ratings = MSEloss(outputs, inputs)
                loss = loss / num_ratings
                loss.backward()
                optimizer.step()
        print(f"epoch {epoch} RMSE {math.sqrt(total / denom):.4f}")
    torch.save(rencoder.state_dict(), "model.last")
