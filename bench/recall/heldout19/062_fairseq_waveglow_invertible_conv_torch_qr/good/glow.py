import torch
import torch.nn.functional as F


class WaveGlowLoss(torch.nn.Module):
    def __init__(self, sigma=1.0):
        super().__init__()
        self.sigma = sigma

    def forward(self, model_output):
        z, log_s_list, log_det_W_list = model_output
        log_s_total = sum(torch.sum(log_s) for log_s in log_s_list)
        log_det_W_total = sum(log_det_W_list)
        loss = torch.sum(z * z) / (2 * self.sigma * self.sigma) - log_s_total - log_det_W_total
        return loss / (z.size(0) * z.size(1) * z.size(2))


class Invertible1x1Conv(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = torch.nn.Conv1d(c, c, kernel_size=1, stride=1, padding=0, bias=False)
        # Sample a random orthonormal matrix to initialize weights
        _qr = torch.linalg.qr if torch.__version__ >= "1.8" else torch.qr
        W = _qr(torch.randn(c, c))[0]
        # Ensure determinant is 1.0 not -1.0
        if torch.det(W) < 0:
            W[:, 0] = -1 * W[:, 0]
        with torch.no_grad():
            self.conv.weight.copy_(W.view(c, c, 1))

    def forward(self, z, reverse=False):
        batch_size, group_size, n_of_groups = z.size()
        W = self.conv.weight.squeeze()
        if reverse:
            W_inverse = W.float().inverse()[..., None].to(z.dtype)
            return F.conv1d(z, W_inverse, bias=None, stride=1, padding=0)
        log_det_W = batch_size * n_of_groups * torch.logdet(W)
        return self.conv(z), log_det_W


class AffineCoupling(torch.nn.Module):
    def __init__(self, n_half, n_mel_channels, n_channels=256):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Conv1d(n_half + n_mel_channels, n_channels, 3, padding=1),
            torch.nn.Tanh(),
            torch.nn.Conv1d(n_channels, 2 * n_half, 3, padding=1),
        )
        self.net[-1].weight.data.zero_()
        self.net[-1].bias.data.zero_()

    def forward(self, audio_0, spect):
        output = self.net(torch.cat([audio_0, spect], dim=1))
        log_s, b = output.chunk(2, dim=1)
        return log_s, b


class WaveGlow(torch.nn.Module):
    def __init__(self, n_mel_channels=80, n_flows=6, n_group=8):
        super().__init__()
        self.n_group = n_group
        self.upsample = torch.nn.ConvTranspose1d(n_mel_channels, n_mel_channels, 1024, stride=256)
        self.convinv = torch.nn.ModuleList([Invertible1x1Conv(n_group) for _ in range(n_flows)])
        self.couplings = torch.nn.ModuleList(
            [AffineCoupling(n_group // 2, n_mel_channels * n_group) for _ in range(n_flows)]
        )

    def forward(self, spect, audio):
        spect = self.upsample(spect)[:, :, : audio.size(1)]
        spect = spect.unfold(2, self.n_group, self.n_group).permute(0, 2, 1, 3)
        spect = spect.contiguous().view(spect.size(0), spect.size(1), -1).permute(0, 2, 1)
        audio = audio.unfold(1, self.n_group, self.n_group).permute(0, 2, 1)
        log_s_list, log_det_W_list = [], []
        for convinv, coupling in zip(self.convinv, self.couplings):
            audio, log_det_W = convinv(audio)
            log_det_W_list.append(log_det_W)
            n_half = audio.size(1) // 2
            audio_0, audio_1 = audio[:, :n_half], audio[:, n_half:]
            log_s, b = coupling(audio_0, spect)
            audio_1 = torch.exp(log_s) * audio_1 + b
            log_s_list.append(log_s)
            audio = torch.cat([audio_0, audio_1], 1)
        return audio, log_s_list, log_det_W_list
