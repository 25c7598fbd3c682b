"""Per-particle poses, optionally refined by SGD through sparse embeddings."""
import pickle

import numpy as np
import torch
import torch.nn as nn

from . import lie_tools


class PoseTracker(nn.Module):
    def __init__(self, rots_np, trans_np=None, D=None, emb_type=None, device=None):
        super().__init__()
        self.rots = torch.tensor(rots_np.astype(np.float32), device=device)
        self.trans = torch.tensor(trans_np.astype(np.float32), device=device) if trans_np is not None else None
        self.use_trans = trans_np is not None
        self.D = D
        self.emb_type = emb_type
        if emb_type is not None:
            if emb_type != "s2s2":
                raise RuntimeError(f"Embedding type {emb_type} not recognized")
            rots_emb = nn.Embedding(self.rots.shape[0], 6, sparse=True)
            rots_emb.weight.data.copy_(lie_tools.SO3_to_s2s2(self.rots))
            self.rots_emb = rots_emb.to(device)
            if self.use_trans:
                trans_emb = nn.Embedding(self.trans.shape[0], 2, sparse=True)
                trans_emb.weight.data.copy_(self.trans)
                self.trans_emb = trans_emb.to(device)
            else:
                self.trans_emb = None

    @classmethod
    def load(cls, infile, Nimg, D, emb_type=None, ind=None, device=None):
        with open(infile, "rb") as f:
            poses = pickle.load(f)
        rots, trans = (poses[0], poses[1]) if isinstance(poses, tuple) else (poses, None)
        if ind is not None:
            rots = rots[ind]
            trans = trans[ind] if trans is not None else None
        assert rots.shape == (Nimg, 3, 3)
        if trans is not None:
            trans = trans * D  # stored as a fraction of the box
        return cls(rots, trans, D, emb_type, device=device)

    def get_pose(self, ind):
        if self.emb_type is None:
            rot = self.rots[ind]
            tran = self.trans[ind] if self.trans is not None else None
        else:
            rot = lie_tools.s2s2_to_SO3(self.rots_emb(ind))
            tran = self.trans_emb(ind) if self.trans_emb is not None else None
        return rot, tran

    def save(self, out_pkl):
        if self.emb_type is None:
            rots = self.rots.cpu().numpy()
            trans = self.trans.cpu().numpy() if self.trans is not None else None
        else:
            rots = lie_tools.s2s2_to_SO3(self.rots_emb.weight.data).cpu().numpy()
            trans = self.trans_emb.weight.data.cpu().numpy() if self.trans_emb is not None else None
        poses = (rots, trans / self.D) if trans is not None else (rots,)
        with open(out_pkl, "wb") as f:
            pickle.dump(poses, f)
