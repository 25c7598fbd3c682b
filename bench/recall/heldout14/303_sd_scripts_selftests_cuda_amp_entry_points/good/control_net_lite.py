import torch
import torch.nn as nn
import torch.nn.functional as F


class LLLiteModule(nn.Module):
    def __init__(self, in_dim, cond_dim=32, mlp_dim=64):
        super().__init__()
        self.conditioning = nn.Sequential(
            nn.Conv2d(3, cond_dim // 2, 4, stride=4),
            nn.ReLU(inplace=True),
            nn.Conv2d(cond_dim // 2, cond_dim, 2, stride=2),
        )
        self.down = nn.Linear(in_dim, mlp_dim)
        self.mid = nn.Linear(mlp_dim + cond_dim, mlp_dim)
        self.up = nn.Linear(mlp_dim, in_dim)

    def forward(self, x, cond_image):
        cond = self.conditioning(cond_image).flatten(2).transpose(1, 2)
        h = self.down(x)
        h = F.relu(self.mid(torch.cat([h, cond], dim=-1)))
        return x + self.up(h)


if __name__ == "__main__":
    device = "cuda"
    module = LLLiteModule(320).to(device)
    optimizer = torch.optim.AdamW(module.parameters(), lr=2e-4)
    scaler = torch.amp.GradScaler("cuda", enabled=True)
    for step in range(3):
        cond_image = torch.randn(2, 3, 64, 64, device=device)
        x = torch.randn(2, 64, 320, device=device)
        with torch.amp.autocast("cuda", enabled=True, dtype=torch.bfloat16):
            y = module(x, cond_image)
            loss = y.float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        print(step, loss.item())
