import torch
import torch.nn.functional as F


class IWSSIM:
    """Information-content weighted SSIM over a Laplacian pyramid."""

    def __init__(self, n_scales=5, block=3, sigma_nsq=0.4):
        self.n_scales = n_scales
        self.block = block
        self.sigma_nsq = sigma_nsq

    def _neighbour_matrix(self, band):
        patches = F.unfold(band[None, None], kernel_size=self.block)
        return patches[0]

    def info_content_weights(self, ref_pyramid, dist_pyramid):
        weights = []
        for scale in range(self.n_scales - 1):
            ref = ref_pyramid[scale]
            dist = dist_pyramid[scale]
            neigh = self._neighbour_matrix(ref)
            cov = neigh @ neigh.t() / neigh.shape[1]
            eig_values, basis = torch.eig(cov, eigenvectors=True)  # expect: TCK901
            eig_values = eig_values[:, 0].clamp(min=0)
            ss = (basis.t() @ neigh).pow(2).mean(0)
            gain = (dist * ref).mean() / (ref.pow(2).mean() + 1e-10)
            info = torch.zeros_like(ss)
            for j in range(len(eig_values)):
                info = info + torch.log2(1 + (gain * gain * ss * eig_values[j]) / self.sigma_nsq)
            weights.append(info)
        return weights
