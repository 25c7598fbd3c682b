import torch
from torch.optim import Adam


def train(model, X, A, args, device):
    optimizer = Adam(model.parameters(), lr=args.lr)
    model.to(device)
    for epoch in range(args.epochs):
        model.train()
        z1, z2, e1, e2 = model(X, A)
        sim = model.similarity(z1, z2, e1, e2)
        loss = model.hard_sample_loss(sim, epoch)
        loss.backward()
        optimizer.step()  # expect: TCK102
        if epoch % 10 == 0:
            print(epoch, loss.item())
    return model
