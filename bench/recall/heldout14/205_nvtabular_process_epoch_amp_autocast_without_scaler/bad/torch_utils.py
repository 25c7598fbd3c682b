import torch


def process_epoch(
    dataloader,
    model,
    train=False,
    optimizer=None,
    loss_func=torch.nn.MSELoss(),
    transform=None,
    amp=True,
    device=None,
):
    """Run one pass of ``dataloader`` through ``model``; update it when ``train``."""
    model.train(mode=train)
    idx = 0
    with torch.set_grad_enabled(train):
        y_list, y_pred_list = [], []
        for idx, batch in enumerate(iter(dataloader)):
            x_cat, x_cont, y = transform(batch) if transform else batch
            if device:
                x_cat, x_cont, y = x_cat.to(device), x_cont.to(device), y.to(device)
            y_list.append(y.detach())
            if amp:
                with torch.cuda.amp.autocast():  # expect: TCK311
                    y_pred = model(x_cat, x_cont)
                    y_pred_list.append(y_pred.detach())
                    loss = loss_func(y_pred, y)
            else:
                y_pred = model(x_cat, x_cont)
                y_pred_list.append(y_pred.detach())
                loss = loss_func(y_pred, y)
            if train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
    print(f"Total batches: {idx}")
    y = torch.cat(y_list)
    y_pred = torch.cat(y_pred_list)
    epoch_loss = loss_func(y_pred, y).item()
    return epoch_loss, y_pred, y
