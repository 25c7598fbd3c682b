import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from aamb_encode import AAE


def make_loader(ncontigs=10000, nsamples=6, ntnf=103, batch_size=256):
    depths = np.random.dirichlet(np.ones(nsamples), size=ncontigs).astype(np.float32)
    tnfs = np.random.randn(ncontigs, ntnf).astype(np.float32)
    return DataLoader(TensorDataset(torch.from_numpy(depths), torch.from_numpy(tnfs)), batch_size=batch_size,
                      shuffle=True, drop_last=True)


def main():
    loader = make_loader()
    aae = AAE(ntnf=103, nsamples=6, _cuda=torch.cuda.is_available())
    aae.trainmodel(loader, nepochs=50)
    latents = aae.get_latents(make_loader())
    np.save("aae_latents.npy", latents)


if __name__ == "__main__":
    main()
