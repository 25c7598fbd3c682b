import logging

import numpy as np
import torch
import torch.nn as nn

logger = logging.getLogger("laser_encoders")


class LaserLstmEncoder(nn.Module):
    def __init__(self, num_embeddings, padding_idx, embed_dim=320, hidden_size=512, num_layers=1, bidirectional=False):
        super().__init__()
        self.padding_idx = padding_idx
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim, padding_idx=padding_idx)
        self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers=num_layers, bidirectional=bidirectional)

    def forward(self, tokens, lengths):
        x = self.embed_tokens(tokens).transpose(0, 1)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.tolist(), enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, padding_value=float("-inf"))
        return out.max(dim=0)[0]


class SentenceEncoder:
    """Turns sentences into fixed-size embeddings with a pretrained LASER encoder."""

    def __init__(self, model_path, max_sentences=32, cpu=False):
        logger.info("loading encoder from %s", model_path)
        self.use_cuda = torch.cuda.is_available() and not cpu
        self.max_sentences = max_sentences

        checkpoint = torch.load(model_path, map_location="cpu", weights_only=True)
        self.encoder = LaserLstmEncoder(**checkpoint["params"])
        self.encoder.load_state_dict(checkpoint["model"])
        self.dictionary = checkpoint["dictionary"]
        self.pad_index = self.dictionary.get("<pad>", 1)
        self.unk_index = self.dictionary.get("<unk>", 3)
        if self.use_cuda:
            self.encoder.cuda()
        self.encoder.eval()

    def _tokenize(self, line):
        ids = [self.dictionary.get(tok, self.unk_index) for tok in line.split()]
        return torch.tensor(ids + [2], dtype=torch.long)

    def encode_sentences(self, sentences):
        results = []
        for start in range(0, len(sentences), self.max_sentences):
            chunk = [self._tokenize(s) for s in sentences[start : start + self.max_sentences]]
            lengths = torch.tensor([len(t) for t in chunk])
            tokens = nn.utils.rnn.pad_sequence(chunk, batch_first=True, padding_value=self.pad_index)
            if self.use_cuda:
                tokens = tokens.cuda()
            with torch.no_grad():
                results.append(self.encoder(tokens, lengths).cpu().numpy())
        return np.vstack(results)
