import os

import numpy as np
import torch
from sklearn.decomposition import PCA


def load_checkpoint(checkpoint_path, model, model_key='model_state_dict'):
    if not os.path.exists(checkpoint_path):
        raise IOError(f"Checkpoint '{checkpoint_path}' does not exist")
    state = torch.load(checkpoint_path, map_location='cpu', weights_only=True)
    model.load_state_dict(state[model_key])
    return state


def pca_project(embeddings):
    """Projects a (C, H, W) embedding array onto its first three principal components as an RGB image."""
    c, h, w = embeddings.shape
    flat = embeddings.reshape(c, -1).T
    rgb = PCA(n_components=3).fit_transform(flat).T.reshape(3, h, w)
    rgb = (rgb - rgb.min()) / (rgb.max() - rgb.min() + 1e-8)
    return (255 * rgb).astype(np.uint8)
