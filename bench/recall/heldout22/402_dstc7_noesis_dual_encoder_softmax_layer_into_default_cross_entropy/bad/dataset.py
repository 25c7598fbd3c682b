import random

import torch


class Dataset(object):
    """Context / candidate-responses examples; the target is the index of the true response."""

    def __init__(self, examples, vocab_size):
        self.examples = examples
        self.vocab_size = vocab_size

    @classmethod
    def synthetic(cls, n, vocab_size=500, num_resp=10, max_len=20, seed=0):
        rng = random.Random(seed)
        examples = []
        for _ in range(n):
            ctx_len = rng.randint(3, max_len)
            context = [rng.randrange(1, vocab_size) for _ in range(ctx_len)]
            responses = [[rng.randrange(1, vocab_size) for _ in range(rng.randint(2, max_len))] for _ in range(num_resp)]
            examples.append((context, responses, rng.randrange(num_resp)))
        return cls(examples, vocab_size)

    def num_batches(self, batch_size):
        return (len(self.examples) + batch_size - 1) // batch_size

    def make_batches(self, batch_size):
        for start in range(0, len(self.examples), batch_size):
            chunk = self.examples[start:start + batch_size]
            ctx_len = max(len(c) for c, _, _ in chunk)
            resp_len = max(len(r) for _, rs, _ in chunk for r in rs)
            contexts = torch.zeros(len(chunk), ctx_len, dtype=torch.long)
            responses = torch.zeros(len(chunk), len(chunk[0][1]), resp_len, dtype=torch.long)
            ctx_lengths = torch.zeros(len(chunk), dtype=torch.long)
            resp_lengths = torch.zeros(len(chunk), len(chunk[0][1]), dtype=torch.long)
            targets = torch.zeros(len(chunk), dtype=torch.long)
            for i, (c, rs, t) in enumerate(chunk):
                contexts[i, : len(c)] = torch.tensor(c)
                ctx_lengths[i] = len(c)
                for j, r in enumerate(rs):
                    responses[i, j, : len(r)] = torch.tensor(r)
                    resp_lengths[i, j] = len(r)
                targets[i] = t
            yield contexts, responses, targets, ctx_lengths, resp_lengths
