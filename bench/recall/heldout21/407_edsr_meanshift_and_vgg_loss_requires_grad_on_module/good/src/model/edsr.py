import torch.nn as nn

from model import common


class EDSR(nn.Module):
    def __init__(self, args, conv=common.default_conv):
        super().__init__()
        n_feats, kernel_size, scale = args.n_feats, 3, args.scale
        self.sub_mean = common.MeanShift(args.rgb_range)
        self.add_mean = common.MeanShift(args.rgb_range, sign=1)
        self.head = conv(args.n_colors, n_feats, kernel_size)
        self.body = nn.Sequential(
            *[common.ResBlock(conv, n_feats, kernel_size, res_scale=args.res_scale) for _ in range(args.n_resblocks)],
            conv(n_feats, n_feats, kernel_size),
        )
        self.tail = nn.Sequential(common.Upsampler(conv, scale, n_feats), conv(n_feats, args.n_colors, kernel_size))

    def forward(self, x):
        x = self.sub_mean(x)
        x = self.head(x)
        x = x + self.body(x)
        x = self.tail(x)
        return self.add_mean(x)
