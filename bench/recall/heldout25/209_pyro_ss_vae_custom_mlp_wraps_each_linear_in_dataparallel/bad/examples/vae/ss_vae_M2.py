"""Semi-supervised VAE (Kingma et al. M2) on MNIST, trained with Pyro's SVI."""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from utils.custom_mlp import MLP, Exp

import pyro
import pyro.distributions as dist
from pyro.infer import SVI, Trace_ELBO, TraceEnum_ELBO, config_enumerate
from pyro.optim import Adam


class SSVAE(nn.Module):
    def __init__(self, output_size=10, input_size=784, z_dim=50, hidden_layers=(500,), config_enum=None, use_cuda=False, aux_loss_multiplier=None):
        super().__init__()
        self.output_size = output_size
        self.input_size = input_size
        self.z_dim = z_dim
        self.hidden_layers = hidden_layers
        self.allow_broadcast = config_enum == "parallel"
        self.use_cuda = use_cuda
        self.aux_loss_multiplier = aux_loss_multiplier
        # define and instantiate the neural networks representing
        # the parameters of various distributions in the model
        self.setup_networks()

    def setup_networks(self):
        z_dim = self.z_dim
        hidden_sizes = list(self.hidden_layers)
        self.encoder_y = MLP(
            [self.input_size] + hidden_sizes + [self.output_size],
            activation=nn.Softplus,
            output_activation=nn.Softmax,
            allow_broadcast=self.allow_broadcast,
            use_cuda=self.use_cuda,
        )
        self.encoder_z = MLP(
            [self.input_size + self.output_size] + hidden_sizes + [[z_dim, z_dim]],
            activation=nn.Softplus,
            output_activation=[None, Exp],
            allow_broadcast=self.allow_broadcast,
            use_cuda=self.use_cuda,
        )
        self.decoder = MLP(
            [z_dim + self.output_size] + hidden_sizes + [self.input_size],
            activation=nn.Softplus,
            output_activation=nn.Sigmoid,
            allow_broadcast=self.allow_broadcast,
            use_cuda=self.use_cuda,
        )
        if self.use_cuda:
            self.cuda()

    def model(self, xs, ys=None):
        pyro.module("ss_vae", self)
        batch_size = xs.size(0)
        options = dict(dtype=xs.dtype, device=xs.device)
        with pyro.plate("data"):
            prior_loc = torch.zeros(batch_size, self.z_dim, **options)
            prior_scale = torch.ones(batch_size, self.z_dim, **options)
            zs = pyro.sample("z", dist.Normal(prior_loc, prior_scale).to_event(1))
            alpha_prior = torch.ones(batch_size, self.output_size, **options) / (1.0 * self.output_size)
            ys = pyro.sample("y", dist.OneHotCategorical(alpha_prior), obs=ys)
            loc = self.decoder([zs, ys])
            pyro.sample("x", dist.Bernoulli(loc, validate_args=False).to_event(1), obs=xs)
            return loc

    def guide(self, xs, ys=None):
        with pyro.plate("data"):
            if ys is None:
                alpha = self.encoder_y(xs)
                ys = pyro.sample("y", dist.OneHotCategorical(alpha))
            loc, scale = self.encoder_z([xs, ys])
            pyro.sample("z", dist.Normal(loc, scale).to_event(1))

    def classifier(self, xs):
        alpha = self.encoder_y(xs)
        res, ind = torch.topk(alpha, 1)
        return torch.zeros_like(alpha).scatter_(1, ind, 1.0)

    def model_classify(self, xs, ys=None):
        pyro.module("ss_vae", self)
        with pyro.plate("data"):
            if ys is not None:
                alpha = self.encoder_y(xs)
                with pyro.poutine.scale(scale=self.aux_loss_multiplier):
                    pyro.sample("y_aux", dist.OneHotCategorical(alpha), obs=ys)

    def guide_classify(self, xs, ys=None):
        pass


def run_inference_for_epoch(sup_loader, unsup_loader, losses, use_cuda):
    """Runs one epoch of SVI: supervised batches interleaved with unsupervised ones."""
    num_losses = len(losses)
    epoch_losses = [0.0] * num_losses
    for (xs, ys), (xu, _) in zip(sup_loader, unsup_loader):
        if use_cuda:
            xs, ys, xu = xs.cuda(), ys.cuda(), xu.cuda()
        for loss_id in range(num_losses):
            epoch_losses[loss_id] += losses[loss_id].step(xs, ys)
            epoch_losses[loss_id] += losses[loss_id].step(xu)
    return epoch_losses


def main(args):
    pyro.set_rng_seed(args.seed)
    ss_vae = SSVAE(z_dim=args.z_dim, hidden_layers=args.hidden_layers, use_cuda=args.cuda, config_enum=args.enum_discrete, aux_loss_multiplier=args.aux_loss_multiplier)
    optimizer = Adam({"lr": args.learning_rate, "betas": (args.beta_1, 0.999)})

    guide = config_enumerate(ss_vae.guide, args.enum_discrete, expand=True)
    elbo = TraceEnum_ELBO(max_plate_nesting=1)
    losses = [SVI(ss_vae.model, guide, optimizer, loss=elbo)]
    if args.aux_loss:
        losses.append(SVI(ss_vae.model_classify, ss_vae.guide_classify, optimizer, loss=Trace_ELBO()))

    images = torch.rand(60000, 784)
    labels = torch.nn.functional.one_hot(torch.randint(0, 10, (60000,)), 10).float()
    sup_loader = DataLoader(TensorDataset(images[: args.sup_num], labels[: args.sup_num]), batch_size=args.batch_size, shuffle=True)
    unsup_loader = DataLoader(TensorDataset(images[args.sup_num :], labels[args.sup_num :]), batch_size=args.batch_size, shuffle=True)

    for i in range(args.num_epochs):
        epoch_losses = run_inference_for_epoch(sup_loader, unsup_loader, losses, args.cuda)
        print(f"{i} epoch: avg losses {[loss / 60000 for loss in epoch_losses]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="SS-VAE")
    parser.add_argument("--cuda", action="store_true", help="use GPU(s) to speed up training")
    parser.add_argument("-n", "--num-epochs", default=50, type=int)
    parser.add_argument("--aux-loss", action="store_true")
    parser.add_argument("-alm", "--aux-loss-multiplier", default=46, type=float)
    parser.add_argument("-enum", "--enum-discrete", default="parallel")
    parser.add_argument("-sup", "--sup-num", default=3000, type=int)
    parser.add_argument("-zd", "--z-dim", default=50, type=int)
    parser.add_argument("-hl", "--hidden-layers", nargs="+", default=[500], type=int)
    parser.add_argument("-lr", "--learning-rate", default=0.00042, type=float)
    parser.add_argument("-b1", "--beta-1", default=0.9, type=float)
    parser.add_argument("-bs", "--batch-size", default=200, type=int)
    parser.add_argument("--seed", default=0, type=int)
    main(parser.parse_args())
