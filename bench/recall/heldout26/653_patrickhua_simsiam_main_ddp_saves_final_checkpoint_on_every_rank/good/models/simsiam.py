import torch.nn as nn
import torch.nn.functional as F


def D(p, z):
    # negative cosine similarity with stop-gradient on z
    return -F.cosine_similarity(p, z.detach(), dim=-1).mean()


def mlp(in_dim, hidden_dim, out_dim, last_bn=True):
    layers = [nn.Linear(in_dim, hidden_dim), nn.BatchNorm1d(hidden_dim), nn.ReLU(inplace=True),
              nn.Linear(hidden_dim, out_dim)]
    if last_bn:
        layers.append(nn.BatchNorm1d(out_dim))
    return nn.Sequential(*layers)


class SimSiam(nn.Module):

    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.projector = mlp(backbone.output_dim, 2048, 2048)
        self.encoder = nn.Sequential(self.backbone, self.projector)
        self.predictor = mlp(2048, 512, 2048, last_bn=False)

    def forward(self, x1, x2):
        z1, z2 = self.encoder(x1), self.encoder(x2)
        p1, p2 = self.predictor(z1), self.predictor(z2)
        return D(p1, z2) / 2 + D(p2, z1) / 2
