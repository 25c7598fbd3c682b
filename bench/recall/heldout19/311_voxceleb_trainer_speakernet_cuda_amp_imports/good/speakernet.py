import torch
import torch.nn as nn
from torch.amp import autocast, GradScaler
from tqdm import tqdm

from models import AMSoftmax, ResNetSE


class SpeakerNet(nn.Module):
    def __init__(self, nOut=512, nClasses=1211, nPerSpeaker=1):
        super().__init__()
        self.encoder = ResNetSE(nOut=nOut)
        self.loss = AMSoftmax(nOut=nOut, nClasses=nClasses)
        self.nPerSpeaker = nPerSpeaker

    def forward(self, data, label=None):
        data = data.reshape(-1, data.size(-2), data.size(-1))
        outp = self.encoder(data)
        if label is None:
            return outp
        outp = outp.reshape(self.nPerSpeaker, -1, outp.size(-1)).transpose(1, 0).squeeze(1)
        return self.loss(outp, label)


class ModelTrainer:
    def __init__(self, speaker_model, lr=0.001, weight_decay=0.0, mixedprec=False, lr_step="epoch"):
        self.model = speaker_model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr, weight_decay=weight_decay)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10, gamma=0.95)
        self.scaler = GradScaler("cuda")
        self.mixedprec = mixedprec
        self.lr_step = lr_step

    def train_network(self, loader, verbose=True):
        self.model.train()
        counter, loss, top1 = 0, 0.0, 0.0
        with tqdm(loader, unit="batch", disable=not verbose) as tepoch:
            for data, data_label in tepoch:
                data = data.transpose(1, 0).cuda(non_blocking=True)
                label = torch.as_tensor(data_label, dtype=torch.long).cuda(non_blocking=True)
                self.model.zero_grad()
                if self.mixedprec:
                    with autocast("cuda"):
                        nloss, prec1 = self.model(data, label)
                    self.scaler.scale(nloss).backward()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    nloss, prec1 = self.model(data, label)
                    nloss.backward()
                    self.optimizer.step()
                loss += nloss.detach().cpu().item()
                top1 += prec1.detach().cpu().item()
                counter += 1
                tepoch.set_postfix(loss=loss / counter)
                if self.lr_step == "iteration":
                    self.scheduler.step()
        if self.lr_step == "epoch":
            self.scheduler.step()
        return loss / counter, top1 / counter

    def save_parameters(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scaler": self.scaler.state_dict()}, path)
