import torch


def meshgrid_from_sizes(x, y, dim=0):
    a = torch.arange(x.size(dim), device=x.device)
    b = torch.arange(y.size(dim), device=y.device)
    return torch.meshgrid(a, b, indexing="ij")


def get_all_pairs_indices(labels):
    matches = (labels.unsqueeze(1) == labels.unsqueeze(0)).byte()
    diffs = matches ^ 1
    matches.fill_diagonal_(0)
    a1_idx, p_idx = torch.where(matches)
    a2_idx, n_idx = torch.where(diffs)
    return a1_idx, p_idx, a2_idx, n_idx


def convert_to_pos_pairs_with_unique_labels(labels):
    a1, p, _, _ = get_all_pairs_indices(labels)
    _, unique_idx = torch.unique(labels[a1], return_inverse=True)
    keep = torch.zeros_like(labels[a1], dtype=torch.bool)
    seen = set()
    for i, u in enumerate(unique_idx.tolist()):
        if u not in seen:
            seen.add(u)
            keep[i] = True
    return a1[keep], p[keep]
