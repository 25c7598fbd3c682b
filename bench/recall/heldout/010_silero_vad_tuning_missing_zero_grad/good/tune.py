import torch

from utils import train


def tune(config, jit_model, decoder, criterion, train_loader, device):
    optimizer = torch.optim.Adam(decoder.parameters(), lr=config.learning_rate)
    for epoch in range(config.num_epochs):
        train_loss = train(config, train_loader, jit_model, decoder, criterion, optimizer, device)
        print(f"epoch {epoch}: train loss {train_loss:.4f}")
