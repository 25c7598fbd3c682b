import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

from policy import ActionPolicy


class TrainAgent:
    def __init__(self, dataset, num_gpus, lr=1e-4, grad_accumulation_steps=4, epochs=10):
        self.multi_gpu = num_gpus > 1
        self.grad_accumulation_steps = grad_accumulation_steps
        self.epochs = epochs
        if self.multi_gpu:
            dist.init_process_group("nccl")
            self.gpu_id = int(os.environ["LOCAL_RANK"])
        else:
            self.gpu_id = 0
        self.device = torch.device("cuda", self.gpu_id)
        self.model = ActionPolicy().to(self.device)
        if self.multi_gpu:
            self.model = DDP(self.model, device_ids=[self.gpu_id], gradient_as_bucket_view=True)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.loader = DataLoader(dataset, batch_size=8, shuffle=True, drop_last=True)

    def run(self):
        cnt_batch = 0
        for epoch in range(self.epochs):
            for batch in self.loader:
                image_feats, input_ids, proprios, actions = (t.to(self.device) for t in batch)
                self.model.train()
                if self.multi_gpu:
                    model = self.model.module
                else:
                    model = self.model
                loss_train = model.loss(image_feats, input_ids, proprios, actions)  # expect: TCK210
                normalized_loss = loss_train / self.grad_accumulation_steps
                normalized_loss.backward()
                if (cnt_batch + 1) % self.grad_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=1.0)
                    self.optimizer.step()
                    self.optimizer.zero_grad(set_to_none=True)
                cnt_batch += 1
            if self.gpu_id == 0:
                print(f"epoch {epoch}: last loss {loss_train.item():.4f}")
