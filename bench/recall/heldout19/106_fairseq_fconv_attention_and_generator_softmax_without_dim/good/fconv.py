import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def Linear(in_features, out_features, dropout=0.0):
    m = nn.Linear(in_features, out_features)
    m.weight.data.normal_(mean=0, std=math.sqrt((1 - dropout) / in_features))
    m.bias.data.zero_()
    return m


class AttentionLayer(nn.Module):
    def __init__(self, conv_channels, embed_dim):
        super().__init__()
        self.in_projection = Linear(conv_channels, embed_dim)
        self.out_projection = Linear(embed_dim, conv_channels)

    def forward(self, x, target_embedding, encoder_out):
        residual = x
        x = (self.in_projection(x) + target_embedding) * math.sqrt(0.5)
        x = torch.bmm(x, encoder_out[0])

        # softmax over last dim
        sz = x.size()
        x = F.softmax(x.view(sz[0] * sz[1], sz[2]), dim=1)
        x = x.view(sz)
        attn_scores = x

        x = torch.bmm(x, encoder_out[1])
        s = encoder_out[1].size(1)
        x = x * (s * math.sqrt(1.0 / s))
        x = (self.out_projection(x) + residual) * math.sqrt(0.5)
        return x, attn_scores


class FConvDecoder(nn.Module):
    def __init__(self, vocab_size, embed_dim=256, conv_channels=256):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim)
        self.fc1 = Linear(embed_dim, conv_channels)
        self.conv = nn.Conv1d(conv_channels, conv_channels, 3, padding=2)
        self.attention = AttentionLayer(conv_channels, embed_dim)
        self.fc2 = Linear(conv_channels, vocab_size)

    def forward(self, tokens, encoder_out):
        target_embedding = self.embed_tokens(tokens)
        x = self.fc1(target_embedding)
        x = self.conv(x.transpose(1, 2))[:, :, : tokens.size(1)].transpose(1, 2)
        x, attn = self.attention(x, target_embedding, encoder_out)
        return self.fc2(x), attn
