import torch
from torch import nn, optim


def train(model, train_dataloader, config, device, start_epoch=0):
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adamax(model.parameters(), lr=config["initial_lr"])
    scheduler = optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda it: 1.0)
    torch.cuda.set_device(device)
    for epoch in range(start_epoch, config["num_epochs"]):
        for i, batch in enumerate(train_dataloader):
            for key in batch:
                batch[key] = batch[key].to(device)
            optimizer.zero_grad()
            output = model(batch)
            target = batch["ans_ind"]
            batch_loss = criterion(output.view(-1, output.size(-1)), target.view(-1))
            batch_loss.backward()
            optimizer.step()
            scheduler.step()
        torch.save(model.state_dict(), f"checkpoint_{epoch}.pth")
        torch.cuda.empty_cache()
