import torch
from torch import nn


def train_model(model, device, train_loader, epochs=5, learning_rate=1e-5, amp=False, gradient_clipping=1.0):
    optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate, weight_decay=1e-8, momentum=0.999)
    grad_scaler = torch.amp.GradScaler("cuda", enabled=amp)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(1, epochs + 1):
        model.train()
        for images, true_masks in train_loader:
            images = images.to(device=device, dtype=torch.float32)
            true_masks = true_masks.to(device=device, dtype=torch.long)
            with torch.autocast(device.type, enabled=amp):
                masks_pred = model(images)
                loss = criterion(masks_pred, true_masks)
            optimizer.zero_grad(set_to_none=True)
            grad_scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clipping)  # expect: TCK305
            grad_scaler.step(optimizer)
            grad_scaler.update()
