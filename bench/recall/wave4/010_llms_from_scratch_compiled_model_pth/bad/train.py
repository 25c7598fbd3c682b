import torch

from gpt import GPTModel


def train_model(cfg, train_loader, device, num_epochs):
    model = GPTModel(cfg).to(device)
    model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
    for _ in range(num_epochs):
        for input_batch, target_batch in train_loader:
            logits = model(input_batch.to(device))
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.to(device).flatten())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    torch.save(model.state_dict(), "model.pth")  # expect: TCK405


def load_for_generation(cfg, device):
    model = GPTModel(cfg)
    model.load_state_dict(torch.load("model.pth", weights_only=True))
    return model.to(device).eval()
