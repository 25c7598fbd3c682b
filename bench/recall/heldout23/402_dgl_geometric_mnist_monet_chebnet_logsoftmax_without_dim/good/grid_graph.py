import numpy as np
import scipy.sparse
import torch


def grid_graph(side, k):
    """k-nearest-neighbour graph on a side x side pixel grid, as a scipy CSR matrix."""
    xs, ys = np.meshgrid(np.arange(side), np.arange(side))
    coords = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32) / side
    dist = ((coords[:, None, :] - coords[None, :, :]) ** 2).sum(-1)
    idx = np.argsort(dist, axis=1)[:, 1:k + 1]
    rows = np.repeat(np.arange(side * side), k)
    weights = np.exp(-dist[rows, idx.ravel()] / dist[rows, idx.ravel()].mean())
    A = scipy.sparse.csr_matrix((weights, (rows, idx.ravel())), shape=(side * side, side * side))
    return A.maximum(A.T), torch.from_numpy(coords)


def coarsen(A, levels):
    """Stand-in for Graclus coarsening: halves the node set at every level."""
    graphs, perm = [A], np.arange(A.shape[0])
    for _ in range(levels):
        n = graphs[-1].shape[0] // 2
        graphs.append(graphs[-1][:n, :n])
    return graphs, perm


def z2polar(edges):
    z = edges.dst["xy"] - edges.src["xy"]
    rho = torch.norm(z, dim=-1, p=2)
    x, y = z.unbind(dim=-1)
    phi = torch.atan2(y, x)
    return {"u": torch.cat([rho.unsqueeze(-1), phi.unsqueeze(-1)], -1)}
