import copy

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class DINOHead(nn.Module):
    def __init__(self, in_dim, out_dim=1024, hidden=512):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, out_dim))

    def forward(self, x):
        return self.mlp(x)


class DINO(L.LightningModule):
    def __init__(self, backbone, embed_dim, out_dim=1024, momentum=0.996,
                 student_temp=0.1, teacher_temp=0.04, lr=5e-4):
        super().__init__()
        self.student = nn.Sequential(backbone, DINOHead(embed_dim, out_dim))
        self.teacher = copy.deepcopy(self.student)
        self.teacher.requires_grad_(False)
        self.register_buffer("center", torch.zeros(1, out_dim))
        self.momentum = momentum
        self.student_temp = student_temp
        self.teacher_temp = teacher_temp
        self.lr = lr

    def train(self):  # expect: TCK610
        super().train()
        self.teacher.eval()
        return self

    def dino_loss(self, student_out, teacher_out):
        t = F.softmax((teacher_out - self.center) / self.teacher_temp, dim=-1)
        s = F.log_softmax(student_out / self.student_temp, dim=-1)
        return -(t * s).sum(dim=-1).mean()

    def training_step(self, batch, batch_idx):
        global_view, local_view = batch
        with torch.no_grad():
            teacher_out = self.teacher(global_view)
        loss = self.dino_loss(self.student(local_view), teacher_out)
        self.log("train_loss", loss)
        return loss

    def on_train_batch_end(self, outputs, batch, batch_idx):
        with torch.no_grad():
            for ps, pt in zip(self.student.parameters(), self.teacher.parameters()):
                pt.mul_(self.momentum).add_(ps.detach(), alpha=1 - self.momentum)

    def validation_step(self, batch, batch_idx):
        global_view, local_view = batch
        loss = self.dino_loss(self.student(local_view), self.teacher(global_view))
        self.log("val_loss", loss)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.student.parameters(), lr=self.lr)
