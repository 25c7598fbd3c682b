import torch
import torch.nn as nn


class DualEncoder(nn.Module):
    def __init__(self, context_encoder, response_encoder, hidden_size):
        super(DualEncoder, self).__init__()
        self.context_encoder = context_encoder
        self.response_encoder = response_encoder
        self.M = nn.Parameter(torch.empty(hidden_size, hidden_size).normal_(0, 0.01))
        self.final_layer = nn.Softmax(dim=1)

    def forward(self, context, candidates):
        c = self.context_encoder(context)
        r = self.response_encoder(candidates)
        logits = torch.bmm(torch.matmul(c, self.M).unsqueeze(1), r.transpose(1, 2)).squeeze(1)
        output = self.final_layer(logits)
        return output
