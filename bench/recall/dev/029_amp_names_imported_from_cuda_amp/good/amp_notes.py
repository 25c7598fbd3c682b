import torch
from torch import nn
from torch.amp import GradScaler, autocast

model = nn.Linear(32, 4).cuda()
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters())
dataloader = [(torch.randn(8, 32, device="cuda"), torch.randint(0, 4, (8,), device="cuda"))]

scaler = GradScaler("cuda")
for inputs, targets in dataloader:
    optimizer.zero_grad()
    with autocast("cuda"):
        outputs = model(inputs)
        loss = loss_fn(outputs, targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
