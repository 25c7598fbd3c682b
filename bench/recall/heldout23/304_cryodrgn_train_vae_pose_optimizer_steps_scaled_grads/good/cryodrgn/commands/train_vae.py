"""Train a heterogeneous VAE on cryo-EM particle images, optionally refining the poses by SGD."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from cryodrgn import ctf, dataset
from cryodrgn.lattice import Lattice
from cryodrgn.models import HetOnlyVAE, unparallelize
from cryodrgn.pose import PoseTracker


def preprocess_input(y, lattice, trans):
    B = y.size(0)
    D = lattice.D
    return lattice.translate_ht(y.view(B, -1), trans.unsqueeze(1)).view(B, D, D)


def run_batch(model, lattice, y, rot, ctf_params=None):
    B = y.size(0)
    D = lattice.D
    input_ = y
    if ctf_params is not None:
        freqs = lattice.freqs2d.unsqueeze(0).expand(B, *lattice.freqs2d.shape) / ctf_params[:, 0].view(B, 1, 1)
        c = ctf.compute_ctf(freqs, *torch.split(ctf_params[:, 1:], 1, 1)).view(B, D, D)
        input_ = y * c.sign()
    z_mu, z_logvar = unparallelize(model).encode(input_)
    z = unparallelize(model).reparameterize(z_mu, z_logvar)
    mask = lattice.get_circular_mask(D // 2)
    y_recon = model(lattice.coords[mask] / lattice.extent / 2 @ rot, z).view(B, -1)
    if ctf_params is not None:
        y_recon = y_recon * c.view(B, -1)[:, mask]
    return z_mu, z_logvar, y_recon, mask


def loss_function(z_mu, z_logvar, y, y_recon, mask, beta):
    B = y.size(0)
    gen_loss = F.mse_loss(y_recon, y.view(B, -1)[:, mask])
    kld = torch.mean(-0.5 * torch.sum(1 + z_logvar - z_mu.pow(2) - z_logvar.exp(), dim=1), dim=0)
    loss = gen_loss + beta * kld / mask.sum().float()
    return loss, gen_loss, kld


def train_batch(model, lattice, y, rot, trans, optim, beta, ctf_params=None, scaler=None, pose_optimizer=None):
    optim.zero_grad()
    model.train()
    if trans is not None:
        y = preprocess_input(y, lattice, trans)
    if scaler is not None:
        with torch.amp.autocast("cuda"):
            z_mu, z_logvar, y_recon, mask = run_batch(model, lattice, y, rot, ctf_params)
            loss, gen_loss, kld = loss_function(z_mu, z_logvar, y, y_recon, mask, beta)
        scaler.scale(loss).backward()
        scaler.step(optim)
        if pose_optimizer is not None:
            # the pose embeddings' gradients came from the scaled loss too
            scaler.step(pose_optimizer)
        scaler.update()
    else:
        z_mu, z_logvar, y_recon, mask = run_batch(model, lattice, y, rot, ctf_params)
        loss, gen_loss, kld = loss_function(z_mu, z_logvar, y, y_recon, mask, beta)
        loss.backward()
        optim.step()
        if pose_optimizer is not None:
            pose_optimizer.step()
    return loss.item(), gen_loss.item(), kld.item()


def save_checkpoint(model, optim, epoch, out_weights):
    torch.save({"epoch": epoch, "model_state_dict": unparallelize(model).state_dict(),
                "optimizer_state_dict": optim.state_dict()}, out_weights)


def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = dataset.MRCData(args.particles, norm=args.norm)
    Nimg, D = data.N, data.D

    do_pose_sgd = args.do_pose_sgd
    posetracker = PoseTracker.load(args.poses, Nimg, D, "s2s2" if do_pose_sgd else None, device=device)
    pose_optimizer = torch.optim.SparseAdam(list(posetracker.parameters()), lr=args.pose_lr) if do_pose_sgd else None
    ctf_params = torch.tensor(ctf.load_ctf_for_training(D - 1, args.ctf), device=device) if args.ctf else None

    lattice = Lattice(D, extent=0.5, device=device)
    model = HetOnlyVAE(lattice, args.qlayers, args.qdim, args.players, args.pdim, args.zdim).to(device)
    optim = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.wd)

    scaler = None
    if args.amp:
        assert args.batch_size % 8 == 0, "Batch size must be divisible by 8 for AMP training"
        scaler = torch.amp.GradScaler("cuda")

    start_epoch = 0
    if args.load:
        checkpoint = torch.load(args.load, weights_only=True)
        model.load_state_dict(checkpoint["model_state_dict"])
        optim.load_state_dict(checkpoint["optimizer_state_dict"])
        start_epoch = checkpoint["epoch"] + 1

    if args.multigpu and torch.cuda.device_count() > 1:
        args.batch_size *= torch.cuda.device_count()
        model = nn.DataParallel(model)

    data_generator = DataLoader(data, batch_size=args.batch_size, shuffle=True)
    for epoch in range(start_epoch, args.num_epochs):
        loss_accum = 0.0
        for minibatch in data_generator:
            ind = minibatch[-1].to(device)
            y = minibatch[0].to(device)
            B = len(ind)
            if do_pose_sgd:
                pose_optimizer.zero_grad()
            rot, tran = posetracker.get_pose(ind)
            ctf_param = ctf_params[ind] if ctf_params is not None else None
            step_poses = do_pose_sgd and epoch >= args.pretrain
            loss, gen_loss, kld = train_batch(model, lattice, y, rot, tran, optim, args.beta,
                                              ctf_params=ctf_param, scaler=scaler,
                                              pose_optimizer=pose_optimizer if step_poses else None)
            loss_accum += loss * B
        print(f"epoch {epoch + 1}: loss {loss_accum / Nimg:.6f}")
        if args.checkpoint and epoch % args.checkpoint == 0:
            save_checkpoint(model, optim, epoch, f"{args.outdir}/weights.{epoch}.pkl")
            if do_pose_sgd and epoch >= args.pretrain:
                posetracker.save(f"{args.outdir}/pose.{epoch}.pkl")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("particles")
    parser.add_argument("--poses", required=True)
    parser.add_argument("--ctf")
    parser.add_argument("--outdir", default="out")
    parser.add_argument("--load")
    parser.add_argument("--checkpoint", type=int, default=1)
    parser.add_argument("--norm", type=float, nargs=2)
    parser.add_argument("--num-epochs", dest="num_epochs", type=int, default=20)
    parser.add_argument("--batch-size", dest="batch_size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--wd", type=float, default=0)
    parser.add_argument("--beta", type=float, default=1.0)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--multigpu", action="store_true")
    parser.add_argument("--do-pose-sgd", dest="do_pose_sgd", action="store_true")
    parser.add_argument("--pretrain", type=int, default=1)
    parser.add_argument("--pose-lr", dest="pose_lr", type=float, default=3e-4)
    parser.add_argument("--zdim", type=int, default=8)
    parser.add_argument("--qlayers", type=int, default=3)
    parser.add_argument("--qdim", type=int, default=256)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--pdim", type=int, default=256)
    main(parser.parse_args())
