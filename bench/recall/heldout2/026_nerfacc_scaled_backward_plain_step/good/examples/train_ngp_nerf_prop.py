import torch
import torch.nn.functional as F

from radiance_fields.ngp import NGPRadianceField
from utils import render_image_with_propnet

radiance_field = NGPRadianceField(aabb=torch.tensor([-1.5, -1.5, -1.5, 1.5, 1.5, 1.5])).to("cuda")
optimizer = torch.optim.Adam(radiance_field.parameters(), lr=1e-2, eps=1e-15)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10000, 15000], gamma=0.33)
grad_scaler = torch.cuda.amp.GradScaler(2**10)


def train(train_dataset, max_steps):
    for step in range(max_steps + 1):
        radiance_field.train()
        data = train_dataset[step % len(train_dataset)]
        rgb, acc, depth, extras = render_image_with_propnet(radiance_field, data["rays"])
        loss = F.smooth_l1_loss(rgb, data["pixels"])
        optimizer.zero_grad()
        grad_scaler.scale(loss).backward()
        grad_scaler.step(optimizer)
        grad_scaler.update()
        scheduler.step()
