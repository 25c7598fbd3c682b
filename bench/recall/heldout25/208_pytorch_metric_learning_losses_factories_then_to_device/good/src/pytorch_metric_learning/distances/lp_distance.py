import torch

from ..utils import loss_and_miner_utils as lmu
from .base_distance import BaseDistance


class LpDistance(BaseDistance):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        assert not self.is_inverted

    def compute_mat(self, query_emb, ref_emb):
        dtype, device = query_emb.dtype, query_emb.device
        if ref_emb is None:
            ref_emb = query_emb
        if dtype == torch.float16:  # cdist doesn't work for float16
            rows, cols = lmu.meshgrid_from_sizes(query_emb, ref_emb, dim=0)
            output = torch.zeros(rows.size(), dtype=dtype, device=device)
            rows, cols = rows.flatten(), cols.flatten()
            distances = torch.nn.functional.pairwise_distance(query_emb[rows], ref_emb[cols], p=self.p)
            output[rows, cols] = distances
            return output
        return torch.cdist(query_emb, ref_emb, p=self.p)
