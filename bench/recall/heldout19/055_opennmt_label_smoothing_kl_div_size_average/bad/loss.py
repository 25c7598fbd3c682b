import torch
import torch.nn as nn
import torch.nn.functional as F


class LabelSmoothingLoss(nn.Module):
    def __init__(self, label_smoothing, tgt_vocab_size, ignore_index=-100):
        assert 0.0 < label_smoothing <= 1.0
        self.padding_idx = ignore_index
        super().__init__()
        smoothing_value = label_smoothing / (tgt_vocab_size - 2)
        one_hot = torch.full((tgt_vocab_size,), smoothing_value)
        one_hot[self.padding_idx] = 0
        self.register_buffer("one_hot", one_hot.unsqueeze(0))
        self.confidence = 1.0 - label_smoothing

    def forward(self, output, target):
        model_prob = self.one_hot.repeat(target.size(0), 1)
        model_prob.scatter_(1, target.unsqueeze(1), self.confidence)
        model_prob.masked_fill_((target == self.padding_idx).unsqueeze(1), 0)
        return F.kl_div(output, model_prob, size_average=False)  # expect: TCK916


class NMTLossCompute(nn.Module):
    def __init__(self, generator, vocab_size, padding_idx, label_smoothing=0.0):
        super().__init__()
        self.generator = generator
        self.padding_idx = padding_idx
        if label_smoothing > 0:
            self.criterion = LabelSmoothingLoss(label_smoothing, vocab_size, ignore_index=self.padding_idx)
        else:
            self.criterion = nn.NLLLoss(ignore_index=self.padding_idx, size_average=False)  # expect: TCK916

    def forward(self, decoder_output, target, normalization):
        scores = self.generator(decoder_output.view(-1, decoder_output.size(2)))
        gtruth = target.view(-1)
        loss = self.criterion(scores, gtruth)
        (loss / normalization).backward()
        non_padding = gtruth.ne(self.padding_idx)
        correct = scores.max(1)[1].eq(gtruth).masked_select(non_padding).sum().item()
        return loss.item(), non_padding.sum().item(), correct
