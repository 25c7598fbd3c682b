import torch

from utils import save_model, save_weights


def train(model, train_loader, c):
    optimizer = torch.optim.Adam(model.parameters(), lr=c.lr_init)
    model.to(c.device)
    for epoch in range(c.meta_epochs):
        model.train()
        for inputs, _ in train_loader:
            optimizer.zero_grad()
            z, log_jac_det = model(inputs.to(c.device))
            loss = torch.mean(0.5 * torch.sum(z ** 2, dim=(1, 2, 3)) - log_jac_det)
            loss.backward()
            optimizer.step()
    if c.save_model:
        model.to("cpu")
        save_model(model, c.modelname)
        save_weights(model, c.modelname)
    return model
