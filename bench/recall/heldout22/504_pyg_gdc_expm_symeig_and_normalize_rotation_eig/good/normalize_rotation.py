import torch
import torch.nn.functional as F


class NormalizeRotation:
    """Rotate a point cloud onto the eigenvectors of its covariance (normals follow)."""

    def __init__(self, max_points: int = -1, sort: bool = False):
        self.max_points = max_points
        self.sort = sort

    def __call__(self, data):
        pos = data.pos
        if self.max_points > 0 and pos.size(0) > self.max_points:
            pos = pos[torch.randperm(pos.size(0))[: self.max_points]]

        pos = pos - pos.mean(dim=0, keepdim=True)
        cov = pos.t() @ pos
        e, v = torch.linalg.eig(cov)
        e, v = torch.view_as_real(e), v.real

        if self.sort:
            order = e[:, 0].argsort(descending=True)
            v = v.t()[order].t()

        data.pos = data.pos @ v
        if getattr(data, "normal", None) is not None:
            data.normal = F.normalize(data.normal @ v)
        return data
