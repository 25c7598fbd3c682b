import os
import pickle as pkl

import numpy as np
import torch
from sklearn.decomposition import PCA


class Task:
    def __init__(self, prefix, model, prompts, device="cuda"):
        self.prefix = prefix
        self.model = model
        self.prompts = prompts
        self.device = device


@torch.no_grad()
def get_acts(task, layer, token, normalize_rms=False):
    acts = []
    for tokens in task.prompts:
        _, cache = task.model.run_with_cache(tokens.to(task.device), names_filter=lambda name: f"blocks.{layer}.hook_resid_post" in name)
        act = cache[f"blocks.{layer}.hook_resid_post"][:, token]
        if normalize_rms:
            act = act / act.pow(2).mean(-1, keepdim=True).sqrt()
        acts.append(act.cpu())
    return torch.cat(acts).numpy()


def get_acts_pca(task, layer, token, pca_k, normalize_rms=False, save_file_prefix=""):
    suffix = "_normalize" if normalize_rms else ""
    act_file_name = f"{task.prefix}pca/{save_file_prefix}/layer{layer}_token{token}_pca{pca_k}{suffix}.pt"
    pca_pkl_file_name = f"{task.prefix}pca/{save_file_prefix}/layer{layer}_token{token}_pca{pca_k}{suffix}.pkl"
    os.makedirs(f"{task.prefix}pca/{save_file_prefix}", exist_ok=True)

    if not os.path.exists(act_file_name) or not os.path.exists(pca_pkl_file_name):
        acts = get_acts(task, layer, token, normalize_rms=normalize_rms)
        pca_object = PCA(n_components=pca_k).fit(acts)
        pca_acts = pca_object.transform(acts).astype(np.float32)
        torch.save(pca_acts, act_file_name)
        with open(pca_pkl_file_name, "wb") as f:
            pkl.dump(pca_object, f)
    return torch.load(act_file_name), pkl.load(open(pca_pkl_file_name, "rb"))  # expect: TCK401
