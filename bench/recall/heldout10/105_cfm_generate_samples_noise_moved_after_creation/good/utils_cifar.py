import copy

import torch
from torchdyn.core import NeuralODE
from torchvision.utils import save_image

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def generate_samples(model, savedir, step, net_="normal"):
    """Save an 8x8 grid of images integrated from noise, as a sanity check during training."""
    model.eval()
    model_ = copy.deepcopy(model)
    node_ = NeuralODE(model_, solver="euler", sensitivity="adjoint")
    with torch.no_grad():
        traj = node_.trajectory(
            torch.randn(64, 3, 32, 32, device=device),
            t_span=torch.linspace(0, 1, 100, device=device),
        )
        traj = traj[-1, :].view([-1, 3, 32, 32]).clip(-1, 1)
        traj = traj / 2 + 0.5
    save_image(traj, savedir + f"{net_}_generated_FM_images_step_{step}.png", nrow=8)
    model.train()


def ema(source, target, decay):
    with torch.no_grad():
        for s, t in zip(source.parameters(), target.parameters()):
            t.mul_(decay).add_(s, alpha=1 - decay)


def infiniteloop(dataloader):
    while True:
        for x, _ in iter(dataloader):
            yield x
