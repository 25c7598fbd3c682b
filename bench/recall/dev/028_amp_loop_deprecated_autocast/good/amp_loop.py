import torch
from torch import nn

model = nn.Linear(64, 8).cuda()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(16, 64, device="cuda"), torch.randint(0, 8, (16,), device="cuda")) for _ in range(10)]

scaler = torch.amp.GradScaler("cuda")
for features, target in data:
    optimizer.zero_grad()
    with torch.amp.autocast("cuda"):
        output = model(features)
        loss = criterion(output, target)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
