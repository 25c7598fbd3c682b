"""LightGlue-style matcher: stacked self/cross attention layers with an assignment head and a
per-layer confidence token used for early stopping at inference."""
import torch
import torch.nn.functional as F
from torch import nn


class TokenConfidence(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        # forward() returns probabilities for the early-stopping test ...
        self.token = nn.Sequential(nn.Linear(dim, 1), nn.Sigmoid())
        # ... while the training loss takes the logits of the linear layer alone
        self.loss_fn = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, desc0: torch.Tensor, desc1: torch.Tensor):
        return (
            self.token(desc0.detach()).squeeze(-1),
            self.token(desc1.detach()).squeeze(-1),
        )

    def loss(self, desc0, desc1, la_now, la_final):
        logit0 = self.token[0](desc0.detach()).squeeze(-1)
        logit1 = self.token[0](desc1.detach()).squeeze(-1)
        la_now, la_final = la_now.detach(), la_final.detach()
        # a point is "confident" when its current best match already equals the final one
        correct0 = la_final[:, :-1, :].max(-1).indices == la_now[:, :-1, :].max(-1).indices
        correct1 = la_final[:, :, :-1].max(-2).indices == la_now[:, :, :-1].max(-2).indices
        return (
            self.loss_fn(logit0, correct0.float()).mean(-1)
            + self.loss_fn(logit1, correct1.float()).mean(-1)
        ) / 2.0


class TransformerLayer(nn.Module):
    def __init__(self, dim: int, num_heads: int) -> None:
        super().__init__()
        self.self_attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.ffn = nn.Sequential(nn.Linear(2 * dim, 2 * dim), nn.LayerNorm(2 * dim), nn.GELU(),
                                 nn.Linear(2 * dim, dim))

    def _update(self, x, message):
        return x + self.ffn(torch.cat([x, message], -1))

    def forward(self, desc0, desc1):
        desc0 = self._update(desc0, self.self_attn(desc0, desc0, desc0)[0])
        desc1 = self._update(desc1, self.self_attn(desc1, desc1, desc1)[0])
        m0 = self.cross_attn(desc0, desc1, desc1)[0]
        m1 = self.cross_attn(desc1, desc0, desc0)[0]
        return self._update(desc0, m0), self._update(desc1, m1)


def sigmoid_log_double_softmax(sim, z0, z1):
    b, m, n = sim.shape
    certainties = F.logsigmoid(z0) + F.logsigmoid(z1).transpose(1, 2)
    scores0 = F.log_softmax(sim, 2)
    scores1 = F.log_softmax(sim.transpose(-1, -2).contiguous(), 2).transpose(-1, -2)
    scores = sim.new_full((b, m + 1, n + 1), 0)
    scores[:, :m, :n] = scores0 + scores1 + certainties
    scores[:, :-1, -1] = F.logsigmoid(-z0.squeeze(-1))
    scores[:, -1, :-1] = F.logsigmoid(-z1.squeeze(-1))
    return scores


class MatchAssignment(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.matchability = nn.Linear(dim, 1)
        self.final_proj = nn.Linear(dim, dim)

    def forward(self, desc0, desc1):
        mdesc0, mdesc1 = self.final_proj(desc0), self.final_proj(desc1)
        d = mdesc0.shape[-1]
        sim = torch.einsum("bmd,bnd->bmn", mdesc0 / d**0.25, mdesc1 / d**0.25)
        return sigmoid_log_double_softmax(sim, self.matchability(desc0), self.matchability(desc1)), sim


class LightGlue(nn.Module):
    def __init__(self, input_dim=256, descriptor_dim=256, n_layers=9, num_heads=4, depth_confidence=0.95):
        super().__init__()
        self.n_layers = n_layers
        self.depth_confidence = depth_confidence
        self.input_proj = nn.Linear(input_dim, descriptor_dim)
        self.transformers = nn.ModuleList(TransformerLayer(descriptor_dim, num_heads) for _ in range(n_layers))
        self.log_assignment = nn.ModuleList(MatchAssignment(descriptor_dim) for _ in range(n_layers))
        self.token_confidence = nn.ModuleList(TokenConfidence(descriptor_dim) for _ in range(n_layers - 1))

    def forward(self, data):
        desc0 = self.input_proj(data["descriptors0"])
        desc1 = self.input_proj(data["descriptors1"])
        all_desc0, all_desc1 = [], []
        for i in range(self.n_layers):
            desc0, desc1 = self.transformers[i](desc0, desc1)
            all_desc0.append(desc0)
            all_desc1.append(desc1)
            if not self.training and i < self.n_layers - 1 and self.depth_confidence > 0:
                token0, token1 = self.token_confidence[i](desc0, desc1)
                if torch.cat([token0, token1], -1).gt(self.depth_confidence).float().mean() > 0.95:
                    break
        scores, _ = self.log_assignment[i](desc0, desc1)
        return {
            "log_assignment": scores,
            "ref_descriptors0": torch.stack(all_desc0, 1),
            "ref_descriptors1": torch.stack(all_desc1, 1),
        }

    def nll_loss(self, log_assignment, gt_assignment):
        return -(log_assignment * gt_assignment).sum((1, 2)) / gt_assignment.sum((1, 2)).clamp(min=1)

    def loss(self, pred, data):
        n = pred["ref_descriptors0"].shape[1]
        final = self.log_assignment[n - 1](pred["ref_descriptors0"][:, -1], pred["ref_descriptors1"][:, -1])[0]
        total = self.nll_loss(final, data["gt_assignment"])
        confidence = 0.0
        for i in range(n - 1):
            la_i, _ = self.log_assignment[i](pred["ref_descriptors0"][:, i], pred["ref_descriptors1"][:, i])
            total = total + (i + 1) * self.nll_loss(la_i, data["gt_assignment"])
            confidence = confidence + self.token_confidence[i].loss(
                pred["ref_descriptors0"][:, i],
                pred["ref_descriptors1"][:, i],
                la_i,
                pred["log_assignment"],
            ) / (n - 1)
        return {"total": total + confidence, "confidence": confidence}
