import math

import faiss
import faiss.contrib.torch_utils  # noqa: F401  (lets faiss search torch tensors)
import numpy as np
import torch
from torch_scatter import scatter


class KNNDatastore(object):
    """Token-level datastore of (decoder state -> target token) pairs searched with faiss."""

    def __init__(self, args, trg_vocab_size):
        self.dimension = args.decoder_embed_dim
        self.dstore_size = args.dstore_size
        self.sim_func = args.knn_sim_func
        self.vocab_size = trg_vocab_size
        self.index = self.setup_faiss(args)

        self.temperature_type = args.knn_temperature_type
        self.temperature = args.knn_temperature_value if self.temperature_type == "fix" else None

        self.k_type = args.knn_k_type
        if self.k_type == "fix":
            self.k = args.k
        else:
            self.max_k = args.max_k
            self.k = args.max_k
            self.mask_for_distance = self.generate_neighbor_mask(args.max_k)
            self.reduce_k = self.mask_for_distance.size(0)

    def generate_neighbor_mask(self, max_k):
        # one row per candidate k (powers of two): distances beyond the k-th neighbour are pushed away
        rows = [pow(2, i) - 1 for i in range(0, int(math.log(max_k, 2)) + 1)]
        k_mask = torch.triu(torch.full((max_k, max_k), 999.0), diagonal=1) + 1
        k_mask = k_mask[torch.tensor(rows)]
        if torch.cuda.is_available():
            k_mask = k_mask.cuda()
        return k_mask

    def setup_faiss(self, args):
        index = faiss.read_index(args.dstore_filename + "/knn_index", faiss.IO_FLAG_ONDISK_SAME_DIR)
        index.nprobe = args.probe
        keys = np.memmap(args.dstore_filename + "/keys.npy", dtype=np.float16, mode="r",
                         shape=(self.dstore_size, self.dimension))
        vals = np.memmap(args.dstore_filename + "/vals.npy", dtype=np.int64, mode="r",
                         shape=(self.dstore_size, 1))
        self.keys = keys
        self.vals = torch.from_numpy(np.array(vals))
        if torch.cuda.is_available():
            self.vals = self.vals.cuda()
        return index

    def dist_func(self, d, k, q, function=None):
        if function == "do_not_recomp_l2":
            return -1 * d
        qsize = q.size()
        knns_vecs = torch.from_numpy(self.keys[k.cpu().numpy()]).to(q.device).view(qsize[0], qsize[1], self.k, -1)
        return -1 * ((knns_vecs - q.unsqueeze(-2)) ** 2).sum(dim=-1)

    def retrieve(self, queries):
        bsz, seq_len = queries.size(0), queries.size(1)
        dists, knns = self.index.search(queries.contiguous().view(-1, queries.size(-1)), self.k)
        tgt_idx = self.vals[knns].to(queries.device).squeeze(-1).view(bsz, seq_len, -1)
        return {
            "distance": dists.view(bsz, seq_len, -1),
            "knn_index": knns.view(bsz, seq_len, -1),
            "tgt_index": tgt_idx,
        }

    def calculate_select_knn_prob(self, knn_index, tgt_index, distance, queries, temperature, knn_select_prob):
        B, S, K = distance.size()
        R_K = knn_select_prob.size(-1)
        dists = self.dist_func(distance, knn_index, queries, function=self.sim_func)
        dists = dists.unsqueeze(-2).expand(B, S, R_K, K) * self.mask_for_distance
        knn_weight = torch.softmax(dists / temperature, dim=-1)  # [B, S, R_K, K]
        weight_sum = torch.matmul(knn_select_prob.unsqueeze(-2), knn_weight).squeeze(-2).unsqueeze(-1)

        knn_tgt_prob = torch.zeros(B, S, K, self.vocab_size).to(queries.device)  # expect: TCK201
        tgt_index = tgt_index.unsqueeze_(-1)
        scatter(src=weight_sum.float(), out=knn_tgt_prob, index=tgt_index, dim=-1)
        return {"prob": knn_tgt_prob.sum(dim=-2)}

    def calculate_knn_prob(self, knn_index, tgt_index, distance, queries, temperature):
        bsz, seq_len = queries.size(0), queries.size(1)
        dists = self.dist_func(distance, knn_index, queries, function=self.sim_func)
        knn_weight = torch.softmax(dists / temperature, dim=-1).unsqueeze(-1)  # [B, S, K, 1]

        knn_tgt_prob = torch.zeros(bsz, seq_len, self.k, self.vocab_size).to(queries.device)  # expect: TCK201
        tgt_index = tgt_index.unsqueeze_(-1)
        scatter(src=knn_weight.float(), out=knn_tgt_prob, index=tgt_index, dim=-1)
        return {"prob": knn_tgt_prob.sum(dim=-2)}
