import torch
import torch.nn as nn

from embedders import CatEmbedder, ProjSumEmbedder, nn_init


def get_embedder(args):
    if args.mixmode == "cat":
        return CatEmbedder(args)
    if args.mixmode == "proj_sum":
        return ProjSumEmbedder(args)
    raise ValueError(args.mixmode)


class SentEncoder(nn.Module):
    """BiLSTM with max pooling over the (meta-)embedded words."""

    def __init__(self, args):
        super(SentEncoder, self).__init__()
        self.embedder = get_embedder(args)
        self.rnn = nn.LSTM(self.embedder.emb_sz, args.rnn_dim, bidirectional=True)
        nn_init(self.rnn, "orthogonal")

    def forward(self, words, seq_lens):
        emb = self.embedder(words)
        packed = nn.utils.rnn.pack_padded_sequence(emb, seq_lens.cpu(), enforce_sorted=False)
        out = nn.utils.rnn.pad_packed_sequence(self.rnn(packed)[0], padding_value=float("-inf"))[0]
        return out.max(0)[0]


class TextClassifier(nn.Module):
    def __init__(self, args, n_classes):
        super(TextClassifier, self).__init__()
        self.encoder = SentEncoder(args)
        self.clf = nn.Sequential(
            nn.Dropout(args.clf_dropout),
            nn.Linear(2 * args.rnn_dim, args.fc_dim),
            nn.ReLU(),
            nn.Linear(args.fc_dim, n_classes),
        )

    def forward(self, words, seq_lens):
        return self.clf(self.encoder(words, seq_lens))
