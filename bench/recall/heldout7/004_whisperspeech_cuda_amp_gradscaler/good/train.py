import torch


def train(task, model, train_loader, optimizer, scheduler, epochs=1, half=True, clip_gradient_norm=0.9, device="cuda"):
    scaler = torch.amp.GradScaler("cuda", enabled=half)
    model.train()
    for epoch in range(epochs):
        for samples in train_loader:
            samples = [s.to(device) for s in samples]
            with torch.autocast(device_type=device, dtype=torch.float16 if half else torch.float32, enabled=device == "cuda"):
                ps, loss = model(*samples)
                loss = loss.mean()
            scaler.scale(loss).backward()
            if clip_gradient_norm:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip_gradient_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
