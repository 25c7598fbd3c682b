"""Information-content-weighted SSIM (IW-SSIM) on a Laplacian pyramid, in PyTorch."""

import numpy as np
import pyrtools as pt
import torch
import torch.nn.functional as F


class IW_SSIM:
    def __init__(self, iw_flag=True, Nsc=5, blSzX=3, blSzY=3, parent=True, sigma_nsq=0.4, use_cuda=False):
        self.K = [0.01, 0.03]
        self.L = 255
        self.weight = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333]
        self.winsize = 11
        self.sigma = 1.5
        self.iw_flag = iw_flag
        self.Nsc = Nsc
        self.blSzX = blSzX
        self.blSzY = blSzY
        self.parent = parent
        self.sigma_nsq = sigma_nsq
        self.bound1 = int(np.ceil((self.winsize - 1) / 2) - np.floor((self.blSzX - 1) / 2))
        self.device = "cuda" if use_cuda else "cpu"

    def gaussian_window(self):
        x, y = np.mgrid[-self.winsize // 2 + 1:self.winsize // 2 + 1, -self.winsize // 2 + 1:self.winsize // 2 + 1]
        g = np.exp(-((x ** 2 + y ** 2) / (2.0 * self.sigma ** 2)))
        g = g / g.sum()
        return torch.from_numpy(g).float()[None, None].to(self.device)

    def get_pyrd(self, imgo, imgd):
        lpo = pt.pyramids.LaplacianPyramid(imgo, height=self.Nsc)
        lpd = pt.pyramids.LaplacianPyramid(imgd, height=self.Nsc)
        imgopr, imgdpr = {}, {}
        for scale in range(1, self.Nsc + 1):
            imgopr[scale] = torch.from_numpy(lpo.pyr_coeffs[(scale - 1, 0)]).float()[None, None].to(self.device)
            imgdpr[scale] = torch.from_numpy(lpd.pyr_coeffs[(scale - 1, 0)]).float()[None, None].to(self.device)
        return imgopr, imgdpr

    def scale_quality_maps(self, imgopr, imgdpr):
        win = self.gaussian_window()
        C1 = (self.K[0] * self.L) ** 2
        C2 = (self.K[1] * self.L) ** 2
        cs_map = {}
        for i in range(1, self.Nsc + 1):
            mu1 = F.conv2d(imgopr[i], win)
            mu2 = F.conv2d(imgdpr[i], win)
            sigma12 = F.conv2d(imgopr[i] * imgdpr[i], win) - mu1 * mu2
            sigma1_sq = torch.clamp(F.conv2d(imgopr[i] ** 2, win) - mu1 * mu1, min=0)
            sigma2_sq = torch.clamp(F.conv2d(imgdpr[i] ** 2, win) - mu2 * mu2, min=0)
            cs_map[i] = (2 * sigma12 + C2) / (sigma1_sq + sigma2_sq + C2)
            if i == self.Nsc:
                l_map = (2 * mu1 * mu2 + C1) / (mu1 ** 2 + mu2 ** 2 + C1)
        return l_map, cs_map

    def roll(self, x, shift, dim):
        if dim == 0:
            return torch.cat((x[-shift:, :], x[:-shift, :]), dim)
        return torch.cat((x[:, -shift:], x[:, :-shift]), dim)

    def imenlarge2(self, im):
        _, _, M, N = im.shape
        t1 = F.interpolate(im, size=(int(4 * M - 3), int(4 * N - 3)), mode="bilinear", align_corners=False)
        t2 = torch.zeros([1, 1, 4 * M - 1, 4 * N - 1], device=im.device)
        t2[:, :, 1:-1, 1:-1] = t1
        t2[:, :, 0, :] = 2 * t2[:, :, 1, :] - t2[:, :, 2, :]
        t2[:, :, -1, :] = 2 * t2[:, :, -2, :] - t2[:, :, -3, :]
        t2[:, :, :, 0] = 2 * t2[:, :, :, 1] - t2[:, :, :, 2]
        t2[:, :, :, -1] = 2 * t2[:, :, :, -2] - t2[:, :, :, -3]
        return t2[:, :, ::2, ::2]

    def info_content_weight_map(self, imgopr, imgdpr):
        tol = 1e-15
        iw_map = {}
        for scale in range(1, self.Nsc):
            imgo = imgopr[scale]
            imgd = imgdpr[scale]
            win = torch.full((1, 1, self.blSzX, self.blSzY), 1.0 / (self.blSzX * self.blSzY), device=self.device)
            padding = (self.blSzX - 1) // 2

            # gain and noise of the distortion channel, per neighbourhood
            mean_x = F.conv2d(imgo, win, padding=padding)
            mean_y = F.conv2d(imgd, win, padding=padding)
            cov_xy = F.conv2d(imgo * imgd, win, padding=padding) - mean_x * mean_y
            ss_x = torch.clamp(F.conv2d(imgo ** 2, win, padding=padding) - mean_x ** 2, min=0)
            ss_y = torch.clamp(F.conv2d(imgd ** 2, win, padding=padding) - mean_y ** 2, min=0)
            g = cov_xy / (ss_x + tol)
            vv = ss_y - g * cov_xy
            g[ss_x < tol] = 0
            vv[ss_x < tol] = ss_y[ss_x < tol]
            g[ss_y < tol] = 0
            vv[ss_y < tol] = 0

            # neighbourhood vectors, with the parent band as an extra component
            _, _, nv, nh = imgo.shape
            prnt = self.parent and scale < self.Nsc - 1
            bands = [imgo[0, 0]]
            if prnt:
                bands.append(self.imenlarge2(imgopr[scale + 1])[0, 0, :nv, :nh])
            Ly = (self.blSzY - 1) // 2
            Lx = (self.blSzX - 1) // 2
            nblv = nv - self.blSzY + 1
            nblh = nh - self.blSzX + 1
            nexp = nblv * nblh
            columns = []
            for ny in range(-Ly, Ly + 1):
                for nx in range(-Lx, Lx + 1):
                    shifted = self.roll(self.roll(bands[0], ny, 0), nx, 1)
                    columns.append(shifted[Ly:Ly + nblv, Lx:Lx + nblh].flatten())
            if prnt:
                columns.append(bands[1][Ly:Ly + nblv, Lx:Lx + nblh].flatten())
            Y = torch.stack(columns, dim=1)
            N = Y.shape[1]

            # covariance of the neighbourhood vectors, projected on its positive spectrum
            C_u = torch.mm(Y.t(), Y) / nexp
            eig_values, H = torch.eig(C_u, eigenvectors=True)  # expect: TCK901
            lam = eig_values[:, 0]
            positive = lam * (lam > 0).float()
            L = torch.diag(positive) * torch.sum(lam) / (torch.sum(positive) + (torch.sum(positive) == 0))
            C_u = torch.mm(torch.mm(H, L), H.t())
            ss = torch.sum(torch.mm(Y, torch.inverse(C_u)) * Y, 1) / N
            ss = ss.view(nblv, nblh)[None, None]
            g = g[:, :, Ly:Ly + nblv, Lx:Lx + nblh]
            vv = vv[:, :, Ly:Ly + nblv, Lx:Lx + nblh]

            # mutual information, summed over the eigen-directions
            infow = torch.zeros(g.shape, device=self.device)
            for j in range(len(lam)):
                infow = infow + torch.log2(
                    1 + ((vv + (1 + g * g) * self.sigma_nsq) * ss * lam[j] + self.sigma_nsq * vv) / (self.sigma_nsq ** 2)
                )
            infow[infow < tol] = 0
            iw_map[scale] = infow
        return iw_map

    def test(self, imgo, imgd):
        imgopr, imgdpr = self.get_pyrd(imgo.astype("float32"), imgd.astype("float32"))
        l_map, cs_map = self.scale_quality_maps(imgopr, imgdpr)
        iw_map = self.info_content_weight_map(imgopr, imgdpr) if self.iw_flag else None
        wmcs = []
        for s in range(1, self.Nsc + 1):
            cs = cs_map[s] if s < self.Nsc else cs_map[s] * l_map
            if iw_map is None:
                wmcs.append(torch.mean(cs))
                continue
            if s < self.Nsc:
                b = self.bound1
                iw = iw_map[s][:, :, b:-b, b:-b] if b != 0 else iw_map[s]
            else:
                iw = torch.ones(cs.shape, device=self.device)
            wmcs.append(torch.sum(cs * iw) / torch.sum(iw))
        wmcs = torch.stack(wmcs)
        weight = torch.tensor(self.weight, device=self.device)
        return torch.prod(torch.abs(wmcs) ** weight)
