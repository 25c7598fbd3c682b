import torch.nn as nn


def conv_bn_act(in_channels, out_channels, stride, use_bn):
    layers = [nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=not use_bn)]
    if use_bn:
        layers.append(nn.BatchNorm2d(out_channels))
    layers.append(nn.LeakyReLU(0.2, inplace=True))
    return nn.Sequential(*layers)


class Discriminator(nn.Module):
    def __init__(self, args, gan_type="GAN"):
        super().__init__()
        use_bn = gan_type != "WGAN_GP"
        channels, depth = 64, 7
        layers = [conv_bn_act(args.n_colors, channels, 1, use_bn)]
        in_channels = channels
        for i in range(depth):
            out_channels = channels * 2 ** ((i + 1) // 2)
            layers.append(conv_bn_act(in_channels, out_channels, 2 if i % 2 == 0 else 1, use_bn))
            in_channels = out_channels
        self.features = nn.Sequential(*layers)
        patch = args.patch_size // 2 ** ((depth + 1) // 2)
        self.classifier = nn.Sequential(
            nn.Linear(in_channels * patch * patch, 1024), nn.LeakyReLU(0.2, inplace=True), nn.Linear(1024, 1))

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))
