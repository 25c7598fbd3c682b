import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.optim import Adam

from model import BERTLM


class ScheduledOptim:
    """Noam-style warm-up around an optimizer."""

    def __init__(self, optimizer, d_model, n_warmup_steps):
        self._optimizer = optimizer
        self.n_warmup_steps = n_warmup_steps
        self.n_current_steps = 0
        self.init_lr = d_model ** -0.5

    def zero_grad(self):
        self._optimizer.zero_grad()

    def step_and_update_lr(self):
        self.n_current_steps += 1
        scale = min(self.n_current_steps ** -0.5, self.n_current_steps * self.n_warmup_steps ** -1.5)
        for group in self._optimizer.param_groups:
            group["lr"] = self.init_lr * scale
        self._optimizer.step()


class BERTTrainer:
    def __init__(self, bert, vocab_size, train_dataloader, local_rank, lr=1e-4, warmup_steps=10000,
                 log_freq=10):
        self.local_rank = local_rank
        self.device = torch.device("cuda", local_rank)
        self.bert = bert
        self.model = BERTLM(bert, vocab_size).to(self.device)
        self.model = DistributedDataParallel(self.model, device_ids=[local_rank])

        self.train_data = train_dataloader
        self.optim = Adam(self.model.parameters(), lr=lr, betas=(0.9, 0.999), weight_decay=0.01)
        self.optim_schedule = ScheduledOptim(self.optim, bert.hidden, n_warmup_steps=warmup_steps)
        self.criterion = nn.NLLLoss(ignore_index=0)
        self.log_freq = log_freq

    def train(self, epoch):
        self.model.train()
        avg_loss = 0.0
        for i, data in enumerate(self.train_data):
            data = {key: value.to(self.device) for key, value in data.items()}
            next_sent_output, mask_lm_output = self.model(data["bert_input"], data["segment_label"])
            next_loss = self.criterion(next_sent_output, data["is_next"])
            mask_loss = self.criterion(mask_lm_output.transpose(1, 2), data["bert_label"])
            loss = next_loss + mask_loss
            self.optim_schedule.zero_grad()
            loss.backward()
            self.optim_schedule.step_and_update_lr()
            avg_loss += loss.item()
            if i % self.log_freq == 0:
                print(f"epoch {epoch} iter {i} avg_loss {avg_loss / (i + 1):.4f}")

    def save(self, epoch, file_path="output/bert_trained.model"):
        output_path = f"{file_path}.ep{epoch}"
        if dist.get_rank() == 0:
            torch.save(self.bert.state_dict(), output_path)
        return output_path
