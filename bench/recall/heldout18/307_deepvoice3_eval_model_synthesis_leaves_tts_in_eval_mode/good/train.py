import os

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter

import synthesis
from model import ConvTTS

global_step = 0
global_epoch = 0


def eval_model(step, writer, model, checkpoint_dir):
    texts = [
        "Scientists at the laboratory say they have discovered a new particle.",
        "Generative adversarial network or variational auto-encoder.",
    ]
    out_dir = os.path.join(checkpoint_dir, "eval")
    os.makedirs(out_dir, exist_ok=True)
    for idx, text in enumerate(texts):
        mel, alignment = synthesis.tts(model, text)
        np.save(os.path.join(out_dir, f"step{step:09d}_text{idx}_mel.npy"), mel)
        writer.add_image(f"eval_alignment_{idx}", alignment[None], step)


def spec_loss(pred, target):
    return (pred - target).abs().mean()


def train(model, data_loader, optimizer, writer, checkpoint_dir, checkpoint_interval, eval_interval, nepochs, clip_thresh=1.0):
    global global_step, global_epoch
    bce = nn.BCELoss()
    while global_epoch < nepochs:
        model.train()
        running_loss = 0.0
        for step, (text, mel_in, mel_target, done) in enumerate(data_loader):
            optimizer.zero_grad()
            text, mel_in, mel_target, done = text.cuda(), mel_in.cuda(), mel_target.cuda(), done.cuda()
            mel_out, done_hat, _ = model(text, mel_in)
            loss = spec_loss(mel_out, mel_target) + bce(done_hat, done)

            if global_step > 0 and global_step % checkpoint_interval == 0:
                torch.save({"state_dict": model.state_dict(), "optimizer": optimizer.state_dict(), "global_step": global_step},
                           os.path.join(checkpoint_dir, f"checkpoint_step{global_step:09d}.pth"))
            if global_step > 0 and global_step % eval_interval == 0:
                eval_model(global_step, writer, model, checkpoint_dir)

            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip_thresh)
            optimizer.step()
            writer.add_scalar("loss", loss.item(), global_step)
            writer.add_scalar("gradient norm", grad_norm.item(), global_step)
            global_step += 1
            running_loss += loss.item()
        writer.add_scalar("loss (per epoch)", running_loss / len(data_loader), global_epoch)
        global_epoch += 1


class RandomUtterances(torch.utils.data.Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        t = 32
        mel = torch.rand(t + 1, 80 * 4)
        return torch.randint(0, 64, (40,)), mel[:-1], mel[1:], (torch.arange(t) == t - 1).float()


if __name__ == "__main__":
    model = ConvTTS().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4, betas=(0.5, 0.9))
    loader = DataLoader(RandomUtterances(), batch_size=16, shuffle=True, num_workers=4)
    os.makedirs("checkpoints", exist_ok=True)
    train(model, loader, optimizer, SummaryWriter(), "checkpoints", checkpoint_interval=10000, eval_interval=10000, nepochs=200)
