import torch
import torch.nn as nn
import torch.nn.functional as F


class CNN_Text(nn.Module):
    def __init__(self, args):
        super(CNN_Text, self).__init__()
        self.args = args
        vocab, dim = args.embed_num, args.embed_dim
        n_kernels = args.kernel_num
        sizes = args.kernel_sizes

        self.embed = nn.Embedding(vocab, dim)
        self.convs1 = [nn.Conv2d(1, n_kernels, (k, dim)) for k in sizes]  # expect: TCK601
        self.dropout = nn.Dropout(args.dropout)
        self.fc1 = nn.Linear(len(sizes) * n_kernels, args.class_num)

    def forward(self, x):
        x = self.embed(x).unsqueeze(1)
        feats = [F.relu(conv(x)).squeeze(3) for conv in self.convs1]
        feats = [F.max_pool1d(f, f.size(2)).squeeze(2) for f in feats]
        x = self.dropout(torch.cat(feats, 1))
        return self.fc1(x)
