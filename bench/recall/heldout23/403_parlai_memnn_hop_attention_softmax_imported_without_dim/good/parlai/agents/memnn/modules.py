import torch
import torch.nn as nn
from torch.nn.functional import softmax


class MemNN(nn.Module):
    """End-to-end memory network: embeds memories and query, then runs several attention hops."""

    def __init__(self, opt, num_features):
        super().__init__()
        self.opt = opt

        def embedding():
            return Embed(num_features, opt['embedding_size'],
                         position_encoding=opt['position_encoding'], padding_idx=0)

        self.query_embedder = embedding()
        self.answer_embedder = embedding()
        self.in_memory_embedder = embedding()
        self.out_memory_embedder = embedding()
        self.memory_hop = Hop(opt['embedding_size'])
        self.score = DotScore()

    def forward(self, memories, queries, memory_lengths, query_lengths):
        in_memory_embeddings = self.in_memory_embedder(memory_lengths, memories)
        out_memory_embeddings = self.out_memory_embedder(memory_lengths, memories)
        query_embeddings = self.query_embedder(query_lengths, queries)
        attention_mask = memory_lengths.ne(0).detach()

        for _ in range(self.opt['hops']):
            query_embeddings = self.memory_hop(query_embeddings, in_memory_embeddings,
                                               out_memory_embeddings, attention_mask)
        return query_embeddings


class Embed(nn.Embedding):
    """Bag-of-words embedding of variable-length sentences given as flat indices plus lengths."""

    def __init__(self, *args, position_encoding=False, **kwargs):
        self.position_encoding = position_encoding
        super().__init__(*args, **kwargs)

    def forward(self, lengths, indices):
        if lengths.dim() == 1:
            lengths = lengths.unsqueeze(0)
        batch, slots = lengths.shape
        width = max(int(lengths.max()), 1)
        padded = indices.new_full((batch, slots, width), self.padding_idx or 0)
        offset = 0
        for i in range(batch):
            for j in range(slots):
                n = int(lengths[i, j])
                if n > 0:
                    padded[i, j, :n] = indices[offset:offset + n]
                offset += n
        emb = super().forward(padded)
        if self.position_encoding:
            pos = torch.linspace(1.0, 0.5, width, device=emb.device).view(1, 1, width, 1)
            emb = emb * pos
        emb = emb.sum(dim=2)
        return emb / lengths.clamp(min=1).unsqueeze(-1).float()


class Hop(nn.Module):
    def __init__(self, embedding_size):
        super(Hop, self).__init__()
        self.embedding_size = embedding_size
        self.linear = nn.Linear(embedding_size, embedding_size, bias=False)

    def forward(self, query_embeddings, in_memory_embeddings, out_memory_embeddings, attention_mask=None):
        attention = torch.bmm(in_memory_embeddings, query_embeddings.unsqueeze(2)).squeeze(2)
        if attention_mask is not None:
            # padded memory slots get no weight
            attention = attention_mask.float() * attention + (1 - attention_mask.float()) * -1e20
        probs = softmax(attention, dim=1).unsqueeze(1)
        memory_output = torch.bmm(probs, out_memory_embeddings).squeeze(1)
        return memory_output + self.linear(query_embeddings)


class DotScore(nn.Module):
    def one_to_one(self, query_embeddings, answer_embeddings):
        return (query_embeddings * answer_embeddings).sum(dim=1)

    def one_to_many(self, query_embeddings, answer_embeddings):
        return query_embeddings.mm(answer_embeddings.t())
