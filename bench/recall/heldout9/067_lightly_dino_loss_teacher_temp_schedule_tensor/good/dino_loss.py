import torch
import torch.nn.functional as F
from torch.nn import Module


class DINOLoss(Module):
    def __init__(self, output_dim=65536, warmup_teacher_temp=0.04, teacher_temp=0.04, warmup_teacher_temp_epochs=30, student_temp=0.1, center_momentum=0.9):
        super().__init__()
        self.warmup_teacher_temp_epochs = warmup_teacher_temp_epochs
        self.teacher_temp = teacher_temp
        self.student_temp = student_temp
        self.center_momentum = center_momentum
        self.register_buffer("center", torch.zeros(1, 1, output_dim))
        self.teacher_temp_schedule = torch.linspace(start=warmup_teacher_temp, end=teacher_temp, steps=warmup_teacher_temp_epochs)

    def forward(self, teacher_out, student_out, epoch):
        if epoch < self.warmup_teacher_temp_epochs:
            teacher_temperature = self.teacher_temp_schedule[epoch]
        else:
            teacher_temperature = torch.tensor(self.teacher_temp)
        t_out = torch.stack(teacher_out)
        t_out = F.softmax((t_out - self.center) / teacher_temperature, dim=-1)
        s_out = torch.stack(student_out) / self.student_temp
        loss = -torch.einsum("tbd,sbd->ts", t_out, F.log_softmax(s_out, dim=-1))
        loss.fill_diagonal_(0)
        self.update_center(torch.stack(teacher_out))
        return loss.sum() / (loss.numel() - loss.diagonal().numel()) / t_out.shape[1]

    @torch.no_grad()
    def update_center(self, teacher_out):
        batch_center = torch.mean(teacher_out, dim=(0, 1), keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)
