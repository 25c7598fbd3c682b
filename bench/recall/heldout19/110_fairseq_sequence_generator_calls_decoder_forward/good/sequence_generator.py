import torch
import torch.nn.functional as F


class SequenceGenerator(object):
    def __init__(self, models, maxlen=200, eos=2):
        self.models = models
        self.maxlen = maxlen
        self.eos = eos

    def _decode(self, tokens, encoder_outs):
        avg_probs = None
        for model, encoder_out in zip(self.models, encoder_outs):
            decoder_out, attn = model.decoder(tokens, encoder_out)
            probs = F.softmax(decoder_out[:, -1, :], dim=-1)
            avg_probs = probs if avg_probs is None else avg_probs + probs
        return (avg_probs / len(self.models)).log()

    @torch.no_grad()
    def generate(self, src_tokens, bos=0):
        for model in self.models:
            model.eval()
        encoder_outs = [model.encoder(src_tokens) for model in self.models]
        tokens = src_tokens.new_full((src_tokens.size(0), 1), bos)
        for _ in range(self.maxlen):
            lprobs = self._decode(tokens, encoder_outs)
            tokens = torch.cat([tokens, lprobs.argmax(dim=-1, keepdim=True)], dim=1)
            if (tokens[:, -1] == self.eos).all():
                break
        return tokens
