import torch
import torch.nn.functional as F


class SequenceGenerator(object):
    def __init__(self, models, beam_size=1, maxlen=200, eos=2):
        self.models = models
        self.beam_size = beam_size
        self.maxlen = maxlen
        self.eos = eos

    def _decode(self, tokens, encoder_outs):
        avg_probs = None
        avg_attn = None
        for model, encoder_out in zip(self.models, encoder_outs):
            decoder_out, attn = model.decoder(tokens, encoder_out)
            probs = F.softmax(decoder_out[:, -1, :], dim=1).data
            attn = attn[:, -1, :].data
            if avg_probs is None or avg_attn is None:
                avg_probs = probs
                avg_attn = attn
            else:
                avg_probs.add_(probs)
                avg_attn.add_(attn)
        avg_probs.div_(len(self.models))
        avg_probs.log_()
        avg_attn.div_(len(self.models))
        return avg_probs, avg_attn

    @torch.no_grad()
    def generate(self, src_tokens, bos=0):
        encoder_outs = [model.encoder(src_tokens) for model in self.models]
        tokens = src_tokens.new_full((src_tokens.size(0), 1), bos)
        for _ in range(self.maxlen):
            lprobs, _ = self._decode(tokens, encoder_outs)
            next_tokens = lprobs.argmax(dim=-1, keepdim=True)
            tokens = torch.cat([tokens, next_tokens], dim=1)
            if (next_tokens == self.eos).all():
                break
        return tokens
