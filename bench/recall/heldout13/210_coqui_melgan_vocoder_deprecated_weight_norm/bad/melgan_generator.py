import torch
from torch import nn
from torch.nn.utils import weight_norm  # expect: TCK904

from melgan_layers import ResidualStack


class MelganGenerator(nn.Module):
    def __init__(self, in_channels=80, out_channels=1, proj_kernel=7, base_channels=512,
                 upsample_factors=(8, 8, 2, 2), res_kernel=3, num_res_blocks=3):
        super().__init__()
        base_padding = (proj_kernel - 1) // 2
        self.inference_padding = 2
        layers = [
            nn.ReflectionPad1d(base_padding),
            weight_norm(nn.Conv1d(in_channels, base_channels, kernel_size=proj_kernel)),  # expect: TCK903
        ]
        for idx, factor in enumerate(upsample_factors):
            in_ch = base_channels // (2 ** idx)
            out_ch = base_channels // (2 ** (idx + 1))
            upsample = nn.ConvTranspose1d(in_ch, out_ch, factor * 2, stride=factor,
                                          padding=factor // 2 + factor % 2, output_padding=factor % 2)
            layers += [
                nn.LeakyReLU(0.2),
                weight_norm(upsample),  # expect: TCK903
                ResidualStack(out_ch, num_res_blocks, res_kernel),
            ]
        layers += [
            nn.LeakyReLU(0.2),
            nn.ReflectionPad1d(base_padding),
            weight_norm(nn.Conv1d(out_ch, out_channels, proj_kernel)),  # expect: TCK903
            nn.Tanh(),
        ]
        self.layers = nn.Sequential(*layers)

    def forward(self, mel):
        return self.layers(mel)

    @torch.no_grad()
    def inference(self, mel):
        mel = torch.nn.functional.pad(mel, (self.inference_padding, self.inference_padding), "replicate")
        return self.layers(mel)

    def remove_weight_norm(self):
        for layer in self.layers:
            if len(layer.state_dict()) != 0:
                try:
                    nn.utils.remove_weight_norm(layer)
                except ValueError:
                    layer.remove_weight_norm()


if __name__ == "__main__":
    generator = MelganGenerator()
    generator.eval()
    generator.remove_weight_norm()
    audio = generator.inference(torch.randn(1, 80, 100))
    print(audio.shape)
