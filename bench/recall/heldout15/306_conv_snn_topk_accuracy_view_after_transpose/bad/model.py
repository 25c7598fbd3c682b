import torch
import torch.nn as nn


class SpikeFn(torch.autograd.Function):
    """Heaviside spike with a rectangular surrogate gradient."""

    @staticmethod
    def forward(ctx, membrane, threshold):
        ctx.save_for_backward(membrane)
        ctx.threshold = threshold
        return (membrane >= threshold).float()

    @staticmethod
    def backward(ctx, grad_out):
        (membrane,) = ctx.saved_tensors
        window = (membrane - ctx.threshold).abs() < 0.5
        return grad_out * window.float(), None


class ConvSNN(nn.Module):
    """Two conv layers of leaky integrate-and-fire neurons unrolled over the event frames."""

    def __init__(self, num_classes=10, decay=0.3, threshold=0.5):
        super().__init__()
        self.decay = decay
        self.threshold = threshold
        self.conv1 = nn.Conv2d(2, 64, 3, padding=1)
        self.conv2 = nn.Conv2d(64, 128, 3, padding=1)
        self.pool = nn.AvgPool2d(2)
        self.fc = nn.Linear(128 * 8 * 8, num_classes)

    def lif(self, x, mem, spike):
        mem = mem * self.decay * (1.0 - spike) + x
        return mem, SpikeFn.apply(mem, self.threshold)

    def forward(self, frames):
        batch, steps = frames.shape[:2]
        mem1 = spk1 = torch.zeros(batch, 64, 32, 32, device=frames.device)
        mem2 = spk2 = torch.zeros(batch, 128, 16, 16, device=frames.device)
        out = torch.zeros(batch, self.fc.out_features, device=frames.device)
        for t in range(steps):
            mem1, spk1 = self.lif(self.conv1(frames[:, t]), mem1, spk1)
            mem2, spk2 = self.lif(self.conv2(self.pool(spk1)), mem2, spk2)
            out = out + self.fc(self.pool(spk2).flatten(1))
        return out / steps
