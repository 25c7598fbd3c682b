import torch
import torch.nn.functional as F
from torch import nn

from allen_nn import util


class SimpleTagger(nn.Module):
    def __init__(self, vocab_size: int, embedding_dim: int, hidden_dim: int, num_classes: int):
        super().__init__()
        self.num_classes = num_classes
        self.embedder = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.encoder = nn.LSTM(embedding_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.tag_projection_layer = nn.Linear(2 * hidden_dim, num_classes)

    def forward(self, tokens: torch.Tensor, tags: torch.Tensor = None):
        mask = tokens != 0
        batch_size, sequence_length = tokens.shape
        encoded_text, _ = self.encoder(self.embedder(tokens))
        logits = self.tag_projection_layer(encoded_text)
        reshaped_log_probs = logits.view(-1, self.num_classes)
        class_probabilities = F.softmax(reshaped_log_probs, dim=-1).view([batch_size, sequence_length, self.num_classes])
        output = {"logits": logits, "class_probabilities": class_probabilities}
        if tags is not None:
            output["loss"] = util.sequence_cross_entropy_with_logits(logits, tags, mask)
        return output
