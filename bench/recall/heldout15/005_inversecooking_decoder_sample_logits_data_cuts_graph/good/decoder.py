import torch
import torch.nn.functional as F
from torch import nn


class IngredientDecoder(nn.Module):
    """Autoregressive transformer decoder over ingredient tokens, conditioned on image features."""

    def __init__(self, vocab_size, dim=256, num_layers=2, seq_length=20):
        super().__init__()
        self.seq_length = seq_length
        self.embed = nn.Embedding(vocab_size, dim)
        layer = nn.TransformerDecoderLayer(dim, nhead=4, dim_feedforward=4 * dim, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, num_layers=num_layers)
        self.proj = nn.Linear(dim, vocab_size)

    def forward(self, token_ids, img_features):
        x = self.embed(token_ids)
        causal = torch.triu(
            torch.full((x.size(1), x.size(1)), float("-inf"), device=x.device), diagonal=1
        )
        x = self.decoder(x, img_features, tgt_mask=causal)
        return self.proj(x[:, -1])

    def sample(self, img_features, greedy=True, temperature=1.0, first_token_value=0, replacement=False):
        batch = img_features.size(0)
        device = img_features.device
        sampled_ids = [torch.full((batch,), first_token_value, dtype=torch.long, device=device)]
        logits = []
        predicted_mask = None
        for step in range(self.seq_length):
            outputs = self.forward(torch.stack(sampled_ids, 1), img_features)
            if not replacement:
                if predicted_mask is None:
                    predicted_mask = torch.zeros_like(outputs)
                else:
                    rows = (sampled_ids[step] != 0).nonzero(as_tuple=True)[0]
                    predicted_mask[rows, sampled_ids[step][rows]] = float("-inf")
                outputs = outputs + predicted_mask
            logits.append(outputs)
            if greedy:
                predicted = F.softmax(outputs, dim=-1).argmax(dim=1).detach()
            else:
                probs = F.softmax(outputs / temperature, dim=-1).detach()
                top_p, top_i = torch.topk(probs, k=10, dim=1)
                choice = torch.multinomial(top_p, 1)
                predicted = torch.gather(top_i, 1, choice).squeeze(1).detach()
            sampled_ids.append(predicted)

        sampled_ids = torch.stack(sampled_ids[1:], 1)
        logits = torch.stack(logits, 1)
        return sampled_ids, logits
