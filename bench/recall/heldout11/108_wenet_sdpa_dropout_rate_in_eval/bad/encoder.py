import torch
from torch import nn

from attention import MultiHeadedAttention, RelPositionMultiHeadedAttention


class ConformerLikeEncoder(nn.Module):
    def __init__(self, idim=80, d_model=256, n_head=4, num_blocks=4, dropout_rate=0.1, use_sdpa=True):
        super().__init__()
        self.embed = nn.Linear(idim, d_model)
        self.rel_attn = RelPositionMultiHeadedAttention(n_head, d_model, dropout_rate, use_sdpa)
        self.blocks = nn.ModuleList([MultiHeadedAttention(n_head, d_model, dropout_rate, use_sdpa) for _ in range(num_blocks)])
        self.norm = nn.LayerNorm(d_model)
        self.ctc = nn.Linear(d_model, 5000)

    def forward(self, feats, mask):
        x = self.embed(feats)
        pos_emb = torch.zeros(1, x.size(1), x.size(2), device=x.device)
        x = x + self.rel_attn(x, x, x, mask, pos_emb)
        for block in self.blocks:
            x = x + block(x, x, x, mask)
        return self.ctc(self.norm(x))


def main():
    model = ConformerLikeEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    for step in range(10):
        feats = torch.randn(4, 50, 80)
        mask = torch.ones(4, 50, 50, dtype=torch.bool)
        logp = model(feats, mask).log_softmax(-1).transpose(0, 1)
        targets = torch.randint(1, 5000, (4, 12))
        loss = ctc(logp, targets, torch.full((4,), 50), torch.full((4,), 12))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.no_grad():
        hyp = model(torch.randn(1, 50, 80), torch.ones(1, 50, 50, dtype=torch.bool)).argmax(-1)
    print(hyp.shape)


if __name__ == "__main__":
    main()
