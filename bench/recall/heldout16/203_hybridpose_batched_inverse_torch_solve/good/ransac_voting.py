import torch


def b_inv(b_mat):
    """Invert a batch of square matrices by solving against the identity."""
    eye = b_mat.new_ones(b_mat.size(-1)).diag().expand_as(b_mat)
    inv = torch.linalg.solve(b_mat, eye)
    return inv


def ransac_voting_layer(mask, vertex, hyp_num=128, inlier_thresh=0.99):
    """Vote 2D keypoints from per-pixel unit direction fields.

    mask:   [b, h, w] binary foreground mask
    vertex: [b, h, w, vn, 2] unit vectors pointing at each keypoint
    returns [b, vn, 2]
    """
    b, h, w, vn, _ = vertex.shape
    batch_pts = []
    for bi in range(b):
        ys, xs = torch.nonzero(mask[bi], as_tuple=True)
        if ys.numel() < 2:
            batch_pts.append(vertex.new_zeros(1, vn, 2))
            continue
        coords = torch.stack([xs, ys], 1).float()          # [tn, 2]
        direct = vertex[bi, ys, xs]                          # [tn, vn, 2]
        normal = torch.stack([direct[..., 1], -direct[..., 0]], -1)  # [tn, vn, 2]

        # least-squares intersection of all voting lines, per keypoint
        normal = normal.permute(1, 0, 2)                     # [vn, tn, 2]
        b_vec = torch.sum(normal * coords.unsqueeze(0), 2)   # [vn, tn]
        ATA = torch.matmul(normal.transpose(1, 2), normal)   # [vn, 2, 2]
        ATb = torch.sum(normal * b_vec.unsqueeze(2), 1)      # [vn, 2]
        win_pts = torch.matmul(b_inv(ATA), ATb.unsqueeze(2))  # [vn, 2, 1]
        batch_pts.append(win_pts.squeeze(2).unsqueeze(0))
    return torch.cat(batch_pts, 0)
