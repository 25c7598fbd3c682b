import torch
from torch import nn

from attention import MultiCrossAttentionHeadVarlen, MultiSelfAttentionHead


class ForecastEngine(nn.Module):
    def __init__(self, cf):
        super().__init__()
        self.embed = nn.Linear(cf["num_channels"], cf["dim_embed"])
        self.blocks = nn.ModuleList(
            [
                MultiSelfAttentionHead(cf["dim_embed"], cf["num_heads"], dropout_rate=cf["dropout_rate"])
                for _ in range(cf["num_blocks"])
            ]
        )
        self.cross = MultiCrossAttentionHeadVarlen(
            cf["dim_embed"], cf["dim_embed"], cf["num_heads"], dropout_rate=cf["dropout_rate"]
        )
        self.head = nn.Linear(cf["dim_embed"], cf["num_channels"])

    def forward(self, x, targets_coords, q_lens, kv_lens):
        tokens = self.embed(x)
        for block in self.blocks:
            tokens = block(tokens)
        queries = self.embed(targets_coords)
        out = self.cross(queries.flatten(0, 1), tokens.flatten(0, 1), q_lens, kv_lens)
        return self.head(out).view_as(targets_coords)


def train(cf, loader_train, loader_val):
    device = torch.device("cuda")
    model = ForecastEngine(cf).to(device=device, dtype=torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cf["lr"])
    for epoch in range(cf["num_epochs"]):
        model.train()
        for x, coords, target, q_lens, kv_lens in loader_train:
            x, coords, target = x.to(device), coords.to(device), target.to(device)
            pred = model(x, coords, q_lens.to(device), kv_lens.to(device))
            loss = nn.functional.mse_loss(pred.float(), target.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            val = [
                nn.functional.mse_loss(model(x.to(device), c.to(device), ql.to(device), kl.to(device)).float(), t.to(device).float()).item()
                for x, c, t, ql, kl in loader_val
            ]
        print(f"epoch {epoch}: validation mse {sum(val) / len(val):.4f}")


CONFIG = {"num_channels": 8, "dim_embed": 256, "num_heads": 8, "num_blocks": 4, "dropout_rate": 0.1, "lr": 1e-4, "num_epochs": 10}
