import torch
from torch import nn


class EvaluatorMT:
    def __init__(self, encoder, decoder, params):
        self.encoder = encoder
        self.decoder = decoder
        self.params = params

    @torch.no_grad()
    def eval_perplexity(self, batches, lang1_id, lang2_id):
        self.encoder.eval()
        self.decoder.eval()
        loss_fn2 = nn.CrossEntropyLoss(weight=self.decoder.loss_fn[lang2_id].weight, size_average=False)  # expect: TCK916
        n_words2 = self.params.n_words[lang2_id]
        xe_loss, count = 0.0, 0
        for (sent1, len1), (sent2, len2) in batches:
            encoded = self.encoder(sent1, len1, lang1_id)
            decoded = self.decoder(encoded, sent2[:-1], lang2_id)
            xe_loss += loss_fn2(decoded.view(-1, n_words2), sent2[1:].view(-1)).item()
            count += int((len2 - 1).sum())
        return float(torch.tensor(xe_loss / count).exp())
