import torch


class Batch:
    def __init__(self, src, trg, pad_index=1):
        self.src = src
        self.trg_input = trg[:, :-1]
        self.trg = trg[:, 1:]
        self.ntokens = int(self.trg.ne(pad_index).sum())
        self.nseqs = src.size(0)

    def sort_by_src_length(self):
        lengths = self.src.ne(1).sum(1)
        order = lengths.argsort(descending=True)
        self.src, self.trg_input, self.trg = self.src[order], self.trg_input[order], self.trg[order]
        return order

    def normalize(self, tensor, normalization="batch", n_gpu=1, n_accumulation=1):
        if n_gpu > 1:
            tensor = tensor.sum()
        if normalization == "sum":
            return tensor
        divisor = self.nseqs if normalization == "batch" else self.ntokens
        return tensor / divisor / n_accumulation
