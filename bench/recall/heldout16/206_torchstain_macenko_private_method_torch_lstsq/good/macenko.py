import torch


def cov(x):
    """Covariance of the rows of ``x`` (variables in rows, observations in columns)."""
    e_x = x.mean(dim=1)
    x = x - e_x[:, None]
    return torch.mm(x, x.T) / (x.size(1) - 1)


def percentile(t, q):
    k = 1 + round(0.01 * float(q) * (t.numel() - 1))
    return t.view(-1).kthvalue(k).values


class MacenkoNormalizer:
    """H&E stain normalisation (Macenko et al., ISBI 2009) on CHW uint8 tensors."""

    def __init__(self):
        self.HERef = torch.tensor([[0.5626, 0.2159], [0.7201, 0.8012], [0.4062, 0.5581]])
        self.maxCRef = torch.tensor([1.9705, 1.0308])

    def __convert_rgb2od(self, I, Io, beta):
        I = I.permute(1, 2, 0)
        OD = -torch.log((I.reshape((-1, I.shape[-1])).float() + 1) / Io)
        ODhat = OD[~torch.any(OD < beta, dim=1)]
        return OD, ODhat

    def __find_HE(self, ODhat, eigvecs, alpha):
        That = torch.matmul(ODhat, eigvecs)
        phi = torch.atan2(That[:, 1], That[:, 0])
        min_phi = percentile(phi, alpha)
        max_phi = percentile(phi, 100 - alpha)
        v_min = torch.matmul(eigvecs, torch.stack((torch.cos(min_phi), torch.sin(min_phi)))).unsqueeze(1)
        v_max = torch.matmul(eigvecs, torch.stack((torch.cos(max_phi), torch.sin(max_phi)))).unsqueeze(1)
        return torch.where(v_min[0] > v_max[0], torch.cat((v_min, v_max), dim=1), torch.cat((v_max, v_min), dim=1))

    def __find_concentration(self, OD, HE):
        Y = OD.T
        return torch.linalg.lstsq(HE, Y).solution

    def __compute_matrices(self, I, Io, alpha, beta):
        OD, ODhat = self.__convert_rgb2od(I, Io=Io, beta=beta)
        _, eigvecs = torch.linalg.eigh(cov(ODhat.T))
        eigvecs = eigvecs[:, [1, 2]]
        HE = self.__find_HE(ODhat, eigvecs, alpha)
        C = self.__find_concentration(OD, HE)
        maxC = torch.stack([percentile(C[0, :], 99), percentile(C[1, :], 99)])
        return HE, C, maxC

    def fit(self, I, Io=240, alpha=1, beta=0.15):
        HE, _, maxC = self.__compute_matrices(I, Io, alpha, beta)
        self.HERef = HE
        self.maxCRef = maxC

    def normalize(self, I, Io=240, alpha=1, beta=0.15):
        c, h, w = I.shape
        HE, C, maxC = self.__compute_matrices(I, Io, alpha, beta)
        C *= (self.maxCRef / maxC).unsqueeze(-1)
        Inorm = Io * torch.exp(-torch.matmul(self.HERef, C))
        Inorm = Inorm.clamp(max=255)
        return Inorm.T.reshape(h, w, c).permute(2, 0, 1) / 255.0
