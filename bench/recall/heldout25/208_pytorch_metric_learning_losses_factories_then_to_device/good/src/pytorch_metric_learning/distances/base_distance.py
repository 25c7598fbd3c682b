import torch


class BaseDistance(torch.nn.Module):
    def __init__(self, normalize_embeddings=True, p=2, power=1, is_inverted=False):
        super().__init__()
        self.normalize_embeddings = normalize_embeddings
        self.p = p
        self.power = power
        self.is_inverted = is_inverted

    def forward(self, query_emb, ref_emb=None):
        if self.normalize_embeddings:
            query_emb = torch.nn.functional.normalize(query_emb, p=2, dim=1)
            ref_emb = None if ref_emb is None else torch.nn.functional.normalize(ref_emb, p=2, dim=1)
        mat = self.compute_mat(query_emb, ref_emb)
        return mat**self.power if self.power != 1 else mat

    def compute_mat(self, query_emb, ref_emb):
        raise NotImplementedError


class DotProductSimilarity(BaseDistance):
    def __init__(self, **kwargs):
        super().__init__(is_inverted=True, normalize_embeddings=False, **kwargs)

    def compute_mat(self, query_emb, ref_emb):
        ref_emb = query_emb if ref_emb is None else ref_emb
        return torch.matmul(query_emb, ref_emb.t())


class CosineSimilarity(DotProductSimilarity):
    def __init__(self, **kwargs):
        BaseDistance.__init__(self, is_inverted=True, normalize_embeddings=True, **kwargs)
