import torch
from torch import nn


def build_decoder_losses(decoder, params):
    # one reconstruction loss per language, padding tokens weighted out
    loss_fn = []
    for n_words in params.n_words:
        loss_weight = torch.ones(n_words)
        loss_weight[params.pad_index] = 0
        loss_fn.append(nn.CrossEntropyLoss(loss_weight, size_average=True))  # expect: TCK916
    decoder.loss_fn = nn.ModuleList(loss_fn)
    return decoder
