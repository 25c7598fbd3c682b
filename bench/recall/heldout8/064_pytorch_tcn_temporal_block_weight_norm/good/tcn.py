from torch import nn
from torch.nn.utils.parametrizations import weight_norm


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, dilation, dropout=0.1, use_norm="weight_norm"):
        super().__init__()
        padding = (kernel_size - 1) * dilation
        self.conv1 = nn.Conv1d(n_inputs, n_outputs, kernel_size, dilation=dilation, padding=padding)
        self.conv2 = nn.Conv1d(n_outputs, n_outputs, kernel_size, dilation=dilation, padding=padding)
        self.norm1 = None
        self.norm2 = None
        if use_norm == "batch_norm":
            self.norm1 = nn.BatchNorm1d(n_outputs)
            self.norm2 = nn.BatchNorm1d(n_outputs)
        elif use_norm == "weight_norm":
            self.conv1 = weight_norm(self.conv1)
            self.conv2 = weight_norm(self.conv2)
        self.activation = nn.ReLU()
        self.dropout = nn.Dropout(dropout)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.trim = padding

    def _branch(self, x, conv, norm):
        out = conv(x)[..., : x.shape[-1]]
        if norm is not None:
            out = norm(out)
        return self.dropout(self.activation(out))

    def forward(self, x):
        out = self._branch(x, self.conv1, self.norm1)
        out = self._branch(out, self.conv2, self.norm2)
        res = x if self.downsample is None else self.downsample(x)
        return self.activation(out + res)
