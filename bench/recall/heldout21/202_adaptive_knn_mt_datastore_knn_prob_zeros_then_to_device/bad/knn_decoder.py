import torch
import torch.nn as nn
import torch.nn.functional as F

from knn_datastore import KNNDatastore


class MetaKNetwork(nn.Module):
    """Predicts, from the retrieved distances, how much to trust each candidate k and the datastore."""

    def __init__(self, max_k, hidden=32):
        super().__init__()
        self.reduce_k = max_k.bit_length()
        self.net = nn.Sequential(nn.Linear(max_k * 2, hidden), nn.Tanh(), nn.Linear(hidden, 1 + self.reduce_k))

    def forward(self, distance, label_counts):
        out = torch.softmax(self.net(torch.cat((distance, label_counts.float()), dim=-1)), dim=-1)
        return {"lambda": out[..., :1], "select_prob": out[..., 1:]}


class KNNTransformerDecoderHead(nn.Module):
    def __init__(self, args, vocab_size, embed_dim):
        super().__init__()
        self.output_projection = nn.Linear(embed_dim, vocab_size, bias=False)
        self.knn_datastore = KNNDatastore(args, vocab_size) if args.load_knn_datastore else None
        self.fix_k = args.knn_k_type == "fix"
        self.knn_lambda = args.knn_lambda_value
        if not self.fix_k:
            self.meta_k = MetaKNetwork(args.max_k)

    def forward(self, last_hidden):
        logits = self.output_projection(last_hidden)
        if self.knn_datastore is None:
            return F.log_softmax(logits, dim=-1)

        found = self.knn_datastore.retrieve(last_hidden)
        knn_dists, knn_index, tgt_index = found["distance"], found["knn_index"], found["tgt_index"]
        temperature = self.knn_datastore.temperature
        if self.fix_k:
            decode = self.knn_datastore.calculate_knn_prob(knn_index, tgt_index, knn_dists, last_hidden, temperature)
            knn_lambda = self.knn_lambda
        else:
            counts = (tgt_index.unsqueeze(-1) == tgt_index.unsqueeze(-2)).sum(-1)
            meta = self.meta_k(knn_dists, counts)
            decode = self.knn_datastore.calculate_select_knn_prob(
                knn_index, tgt_index, knn_dists, last_hidden, temperature, meta["select_prob"]
            )
            knn_lambda = meta["lambda"]
        network_prob = F.softmax(logits, dim=-1)
        return torch.log(knn_lambda * decode["prob"] + (1 - knn_lambda) * network_prob)
