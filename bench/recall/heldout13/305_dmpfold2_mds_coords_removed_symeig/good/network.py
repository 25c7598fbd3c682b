import torch
import torch.nn.functional as F
from torch import nn


class ResBlock(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=dilation, dilation=dilation)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=dilation, dilation=dilation)
        self.norm = nn.GroupNorm(8, channels)

    def forward(self, x):
        return x + self.conv2(F.elu(self.norm(self.conv1(x))))


class GRUResNet(nn.Module):
    def __init__(self, width=64, cwidth=32, nblocks=8):
        super().__init__()
        self.embed = nn.Linear(21, width)
        self.hgru = nn.GRU(width, width // 2, batch_first=False, bidirectional=True)
        self.inconv = nn.Conv2d(width + 1, cwidth, 1)
        self.resnet = nn.Sequential(*[ResBlock(cwidth, 2 ** (i % 4)) for i in range(nblocks)], nn.Conv2d(cwidth, 2, 1))
        self.coord_gru = nn.GRU(width + 8, 128, batch_first=True, bidirectional=True)
        self.coord_fc = nn.Linear(256, 3)

    def forward(self, seq_onehot, nloops=2):
        nres = seq_onehot.size(1)
        x = self.hgru(self.embed(seq_onehot).permute(1, 0, 2))[0]
        mat1d = x.permute(1, 2, 0)
        pair = mat1d.unsqueeze(2) * mat1d.unsqueeze(3)
        resinp = torch.cat((pair, torch.zeros_like(pair[:, :1])), dim=1)
        out = self.resnet(self.inconv(resinp))
        # symmetric, non-negative distance map
        dm = torch.abs((out[:, 0] + out[:, 0].transpose(1, 2)) / 2)
        # classical MDS: coordinates from the distance matrix
        M = 0.5 * (dm[:, 0:1, :].expand(-1, nres, -1) ** 2 + dm[:, :, 0:1].expand(-1, -1, nres) ** 2 - dm ** 2)
        w, v = torch.linalg.eigh(M.float())
        w = torch.clamp(F.relu(w), min=1e-8)
        mds_coords = torch.matmul(v, torch.diag_embed(w.sqrt()))[:, :, -8:]
        coordembed = torch.cat((mat1d.permute(0, 2, 1), mds_coords), dim=2)
        ca_coords = self.coord_fc(self.coord_gru(coordembed)[0])

        for _ in range(nloops):
            dmap = torch.clamp((ca_coords.unsqueeze(2) - ca_coords.unsqueeze(1)).pow(2).sum(dim=-1), min=1e-8).sqrt()
            resinp = torch.cat((resinp[:, :-1], dmap.unsqueeze(1)), dim=1)
            out = self.resnet(self.inconv(resinp))
            dm = torch.abs((out[:, 0] + out[:, 0].transpose(1, 2)) / 2)
            M = 0.5 * (dm[:, 0:1, :].expand(-1, nres, -1) ** 2 + dm[:, :, 0:1].expand(-1, -1, nres) ** 2 - dm ** 2)
            w, v = torch.linalg.eigh(M.float())
            w = torch.clamp(F.relu(w), min=1e-8)
            mds_coords = torch.matmul(v, torch.diag_embed(w.sqrt()))[:, :, -8:]
            coordembed = torch.cat((mat1d.permute(0, 2, 1), mds_coords), dim=2)
            ca_coords = self.coord_fc(self.coord_gru(coordembed)[0])
        return ca_coords, dm
