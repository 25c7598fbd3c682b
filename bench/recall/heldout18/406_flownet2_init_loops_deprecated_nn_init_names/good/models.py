import torch
import torch.nn as nn
from torch.nn import init

from networks import FlowNetS, conv, predict_flow


class FlowNetFusion(nn.Module):
    def __init__(self, batch_norm=True):
        super().__init__()
        self.conv0 = conv(batch_norm, 11, 64)
        self.conv1 = conv(batch_norm, 64, 64, stride=2)
        self.deconv0 = nn.ConvTranspose2d(64, 16, 4, 2, 1)
        self.predict_flow0 = predict_flow(16)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m.bias is not None:
                    init.uniform_(m.bias)
                init.xavier_uniform_(m.weight)

            if isinstance(m, nn.ConvTranspose2d):
                if m.bias is not None:
                    init.uniform_(m.bias)
                init.xavier_uniform_(m.weight)

    def forward(self, x):
        return self.predict_flow0(self.deconv0(self.conv1(self.conv0(x))))


class FlowNet2(nn.Module):
    """Stack of two FlowNetS refining each other, fused with a small network."""

    def __init__(self, batch_norm=False, div_flow=20.0):
        super().__init__()
        self.div_flow = div_flow
        self.flownets_1 = FlowNetS(input_channels=6, batch_norm=batch_norm)
        self.flownets_2 = FlowNetS(input_channels=8, batch_norm=batch_norm)
        self.fusion = FlowNetFusion(batch_norm=batch_norm)
        self.upsample = nn.Upsample(scale_factor=4, mode="bilinear")

    def forward(self, inputs):
        x = torch.cat((inputs[:, :, 0], inputs[:, :, 1]), dim=1)
        flow1 = self.upsample(self.flownets_1(x)[0] * self.div_flow)
        flow2 = self.upsample(self.flownets_2(torch.cat((x, flow1 / self.div_flow), dim=1))[0] * self.div_flow)
        fused = self.fusion(torch.cat((inputs[:, :, 0], flow1, flow2, inputs[:, :, 1][:, :1]), dim=1))
        return fused


def train(model, loader, epochs=1, lr=1e-4, device="cuda"):
    model.to(device).train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        for frames, target_flow in loader:
            frames, target_flow = frames.to(device), target_flow.to(device)
            loss = torch.norm(model(frames) - target_flow, p=2, dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
