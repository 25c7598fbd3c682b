import torch
import torch.nn as nn
import torch.nn.functional as F

from pytext.models.model import Model


class BiLSTMRepresentation(nn.Module):
    def __init__(self, embed_dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.representation_dim = 2 * hidden_dim

    def forward(self, embedded, seq_lens=None):
        out, _ = self.lstm(embedded)
        return out.max(dim=1)[0]


class ClassificationOutputLayer(nn.Module):
    def get_loss(self, logit, target, context=None):
        return F.cross_entropy(logit, target)

    def get_pred(self, logit, target=None, context=None):
        return logit.argmax(dim=-1), F.softmax(logit, dim=-1)


class DocModel(Model):
    """Document classification: word embedding, BiLSTM with max pooling, MLP decoder."""

    @classmethod
    def from_config(cls, vocab_size: int, num_labels: int, embed_dim: int = 100, hidden_dim: int = 128):
        embedding = nn.Embedding(vocab_size, embed_dim)
        representation = BiLSTMRepresentation(embed_dim, hidden_dim)
        decoder = nn.Sequential(nn.Linear(representation.representation_dim, hidden_dim), nn.ReLU(),
                                nn.Linear(hidden_dim, num_labels))
        return cls(embedding, representation, decoder, ClassificationOutputLayer())
