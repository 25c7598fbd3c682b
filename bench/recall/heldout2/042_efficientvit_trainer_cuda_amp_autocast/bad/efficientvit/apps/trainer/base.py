import torch
import torch.nn as nn


class Trainer:
    def __init__(self, network, optimizer, lr_scheduler, enable_amp=True, amp_dtype=torch.float16):
        self.network = network
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.enable_amp = enable_amp
        self.amp_dtype = amp_dtype
        self.scaler = torch.amp.GradScaler("cuda", enabled=enable_amp)
        self.criterion = nn.CrossEntropyLoss()

    def run_step(self, feed_dict):
        images = feed_dict["data"].cuda()
        labels = feed_dict["label"].cuda()
        with torch.cuda.amp.autocast(enabled=self.enable_amp, dtype=self.amp_dtype):  # expect: TCK301
            output = self.network(images)
            loss = self.criterion(output, labels)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
        self.lr_scheduler.step()
        return loss.item()
