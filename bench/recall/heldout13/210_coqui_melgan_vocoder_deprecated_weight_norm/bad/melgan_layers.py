from torch import nn
from torch.nn.utils import weight_norm  # expect: TCK904


class ResidualStack(nn.Module):
    def __init__(self, channels, num_res_blocks, kernel_size):
        super().__init__()
        assert (kernel_size - 1) % 2 == 0, "kernel_size has to be odd"
        base_padding = (kernel_size - 1) // 2
        self.blocks = nn.ModuleList()
        for idx in range(num_res_blocks):
            dilation = kernel_size ** idx
            dilated = weight_norm(nn.Conv1d(channels, channels, kernel_size, dilation=dilation))  # expect: TCK903
            pointwise = weight_norm(nn.Conv1d(channels, channels, kernel_size=1))  # expect: TCK903
            self.blocks.append(
                nn.Sequential(nn.LeakyReLU(0.2), nn.ReflectionPad1d(base_padding * dilation), dilated, nn.LeakyReLU(0.2), pointwise)
            )
        self.shortcuts = nn.ModuleList(
            [weight_norm(nn.Conv1d(channels, channels, kernel_size=1)) for _ in range(num_res_blocks)]  # expect: TCK903
        )

    def forward(self, x):
        for block, shortcut in zip(self.blocks, self.shortcuts):
            x = shortcut(x) + block(x)
        return x

    def remove_weight_norm(self):
        for block, shortcut in zip(self.blocks, self.shortcuts):
            nn.utils.remove_weight_norm(block[2])
            nn.utils.remove_weight_norm(block[4])
            nn.utils.remove_weight_norm(shortcut)
