import torch
from torch import nn


class TFC(nn.Module):
    """1-D conv encoder; in pre-training it also returns the contrastive + reconstruction loss."""

    def __init__(self, configs, args):
        super().__init__()
        self.training_mode = args.training_mode
        self.conv_block1 = nn.Sequential(
            nn.Conv1d(configs.input_channels, 32, kernel_size=configs.kernel_size, stride=configs.stride,
                      bias=False, padding=configs.kernel_size // 2),
            nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(kernel_size=2, stride=2, padding=1),
            nn.Dropout(configs.dropout),
        )
        self.conv_block2 = nn.Sequential(
            nn.Conv1d(32, 64, kernel_size=8, stride=1, bias=False, padding=4),
            nn.BatchNorm1d(64), nn.ReLU(), nn.MaxPool1d(kernel_size=2, stride=2, padding=1),
        )
        self.conv_block3 = nn.Sequential(
            nn.Conv1d(64, configs.final_out_channels, kernel_size=8, stride=1, bias=False, padding=4),
            nn.BatchNorm1d(configs.final_out_channels), nn.ReLU(), nn.MaxPool1d(kernel_size=2, stride=2, padding=1),
        )
        self.dense = nn.Sequential(
            nn.Linear(configs.CNNoutput_channel * configs.final_out_channels, 256),
            nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 128),
        )
        if self.training_mode == "pre_train":
            self.head = nn.Linear(configs.CNNoutput_channel * configs.final_out_channels, configs.input_length)
            self.temperature = 0.2

    def encode(self, x):
        x = self.conv_block3(self.conv_block2(self.conv_block1(x)))
        h = x.reshape(x.shape[0], -1)
        return h, self.dense(h)

    def forward(self, x_in_t, pretrain=False):
        h, z = self.encode(x_in_t)
        if not pretrain:
            return h, z
        z = nn.functional.normalize(z, dim=1)
        sim = z @ z.t() / self.temperature
        sim = sim - torch.eye(sim.shape[0], device=sim.device) * 1e9
        half = sim.shape[0] // 2
        targets = torch.cat([torch.arange(half, 2 * half), torch.arange(0, half)]).to(sim.device)
        loss_cl = nn.functional.cross_entropy(sim, targets)
        weights = torch.softmax(sim, dim=1)
        pred_x = self.head(weights @ h)
        loss_rb = nn.functional.mse_loss(pred_x, x_in_t.reshape(x_in_t.size(0), -1).detach())
        return loss_cl + loss_rb, loss_cl, loss_rb


class target_classifier(nn.Module):
    """Classification head: 2-layer MLP on the flattened encoder features."""

    def __init__(self, configs):
        super().__init__()
        self.logits = nn.Linear(configs.CNNoutput_channel * configs.final_out_channels, 64)
        self.logits_simple = nn.Linear(64, configs.num_classes_target)

    def forward(self, emb):
        emb = torch.sigmoid(self.logits(emb.reshape(emb.shape[0], -1)))
        return self.logits_simple(emb)
