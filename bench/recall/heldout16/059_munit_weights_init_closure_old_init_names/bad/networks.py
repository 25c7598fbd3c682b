from torch import nn


class Conv2dBlock(nn.Module):
    def __init__(self, in_dim, out_dim, ks, st, pad, norm="none", activation="relu"):
        super().__init__()
        self.pad = nn.ReflectionPad2d(pad)
        self.conv = nn.Conv2d(in_dim, out_dim, ks, st)
        self.norm = nn.InstanceNorm2d(out_dim, affine=False) if norm == "in" else nn.Identity()
        self.activation = nn.LeakyReLU(0.2, inplace=True) if activation == "lrelu" else nn.ReLU(inplace=True)

    def forward(self, x):
        return self.activation(self.norm(self.conv(self.pad(x))))


class Generator(nn.Module):
    def __init__(self, input_dim=3, dim=64):
        super().__init__()
        self.model = nn.Sequential(
            Conv2dBlock(input_dim, dim, 7, 1, 3, norm="in"),
            Conv2dBlock(dim, dim * 2, 4, 2, 1, norm="in"),
            nn.Upsample(scale_factor=2),
            Conv2dBlock(dim * 2, dim, 5, 1, 2, norm="in"),
            nn.Conv2d(dim, input_dim, 7, 1, 3),
            nn.Tanh(),
        )

    def forward(self, x):
        return self.model(x)


class Discriminator(nn.Module):
    def __init__(self, input_dim=3, dim=64):
        super().__init__()
        self.model = nn.Sequential(
            Conv2dBlock(input_dim, dim, 4, 2, 1, activation="lrelu"),
            Conv2dBlock(dim, dim * 2, 4, 2, 1, activation="lrelu"),
            nn.Conv2d(dim * 2, 1, 1, 1, 0),
        )

    def forward(self, x):
        return self.model(x)
