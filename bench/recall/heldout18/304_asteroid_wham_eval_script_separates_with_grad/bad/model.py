import torch
import torch.nn as nn


class TasNetLite(nn.Module):
    """Encoder / mask network / decoder separation model (Conv-TasNet style)."""

    def __init__(self, n_src=2, n_filters=256, kernel_size=16, hidden=512, n_blocks=4):
        super().__init__()
        self.n_src = n_src
        self.encoder = nn.Conv1d(1, n_filters, kernel_size, stride=kernel_size // 2, bias=False)
        blocks = []
        for i in range(n_blocks):
            blocks += [
                nn.Conv1d(n_filters, hidden, 1),
                nn.PReLU(),
                nn.GroupNorm(1, hidden),
                nn.Conv1d(hidden, hidden, 3, padding=2 ** i, dilation=2 ** i, groups=hidden),
                nn.PReLU(),
                nn.Conv1d(hidden, n_filters, 1),
            ]
        self.masker = nn.Sequential(*blocks, nn.Conv1d(n_filters, n_src * n_filters, 1))
        self.decoder = nn.ConvTranspose1d(n_filters, 1, kernel_size, stride=kernel_size // 2, bias=False)

    def forward(self, wav):
        w = torch.relu(self.encoder(wav))
        masks = torch.sigmoid(self.masker(w)).view(wav.shape[0], self.n_src, w.shape[1], w.shape[2])
        est = self.decoder((masks * w.unsqueeze(1)).flatten(0, 1))
        return est.view(wav.shape[0], self.n_src, -1)[..., : wav.shape[-1]]


def make_model_and_optimizer(conf):
    model = TasNetLite(**conf["model"])
    optimizer = torch.optim.Adam(model.parameters(), lr=conf["lr"])
    return model, optimizer
