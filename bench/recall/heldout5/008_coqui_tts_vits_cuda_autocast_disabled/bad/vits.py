import torch
from torch import nn


class Vits(nn.Module):
    def __init__(self, generator, discriminator, criteria):
        super().__init__()
        self.generator = generator
        self.disc = discriminator
        self.criteria = criteria

    def train_step(self, batch, optimizer_idx):
        outputs = self.generator(batch["tokens"], batch["spec"])
        if optimizer_idx == 0:
            scores_real, scores_fake, _, _ = self.disc(outputs["wav"].detach(), batch["wav"])
            with torch.cuda.amp.autocast(enabled=False):  # expect: TCK301
                loss_dict = self.criteria[0](scores_real.float(), scores_fake.float())
            return outputs, loss_dict
        _, scores_fake, feats_real, feats_fake = self.disc(outputs["wav"], batch["wav"])
        with torch.cuda.amp.autocast(enabled=False):  # expect: TCK301
            loss_dict = self.criteria[1](scores_fake.float(), feats_real, feats_fake)
        return outputs, loss_dict
