import argparse
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

from models import Darknet

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--batch_size", type=int, default=8)
parser.add_argument("--gradient_accumulations", type=int, default=2)
parser.add_argument("--checkpoint_interval", type=int, default=1)
opt = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = Darknet().to(device)
model.train()

dataset = TensorDataset(torch.randn(256, 3, 64, 64), torch.rand(256, 6))
dataloader = DataLoader(dataset, batch_size=opt.batch_size, shuffle=True, pin_memory=True)

optimizer = torch.optim.Adam(model.parameters())

for epoch in range(opt.epochs):
    start_time = time.time()
    for batch_i, (imgs, targets) in enumerate(dataloader):
        batches_done = len(dataloader) * epoch + batch_i

        imgs = imgs.to(device)
        targets = targets.to(device)

        loss, outputs = model(imgs, targets)
        loss.backward()

        if batches_done % opt.gradient_accumulations == 0:
            optimizer.step()
            optimizer.zero_grad()

        log = ", ".join(f"{k}={v}" for yolo in model.yolo_layers for k, v in yolo.metrics.items())
        print(f"[Epoch {epoch}/{opt.epochs}, Batch {batch_i}/{len(dataloader)}] {log}")

        model.seen += imgs.size(0)

    print(f"epoch time {time.time() - start_time:.1f}s")
    if epoch % opt.checkpoint_interval == 0:
        torch.save(model.state_dict(), f"yolov3_ckpt_{epoch}.pth")
