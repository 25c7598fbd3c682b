import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm.auto import tqdm


class TextClassifier(nn.Module):
    def __init__(self, vocab_size=30522, dim=256, num_labels=2):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.classifier(self.dropout(self.embed(input_ids)))
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return loss, logits


class ClassificationModel:
    def __init__(self, num_labels=2, args=None):
        self.args = {"train_batch_size": 32, "num_train_epochs": 3, "learning_rate": 4e-5, "max_grad_norm": 1.0}
        self.args.update(args or {})
        dist.init_process_group("nccl")
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)
        self.device = torch.device("cuda", self.local_rank)
        self.model = TextClassifier(num_labels=num_labels)

    def train_model(self, input_ids, labels):
        self.model.to(self.device)
        dataset = TensorDataset(input_ids, labels)
        return self.train(dataset)

    def train(self, train_dataset):
        args = self.args
        sampler = DistributedSampler(train_dataset, shuffle=True)
        train_dataloader = DataLoader(train_dataset, sampler=sampler, batch_size=args["train_batch_size"])
        model = DDP(self.model, device_ids=[self.local_rank])
        optimizer = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"])

        global_step, tr_loss = 0, 0.0
        model.zero_grad()
        for epoch in range(args["num_train_epochs"]):
            sampler.set_epoch(epoch)
            model.train()
            for input_ids, labels in tqdm(train_dataloader, desc="Running Epoch", disable=dist.get_rank() != 0):
                loss, _ = model(input_ids.to(self.device), labels=labels.to(self.device))
                loss.backward()
                tr_loss += loss.detach()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
                optimizer.step()
                model.zero_grad()
                global_step += 1
        return global_step, (tr_loss / max(global_step, 1)).item()


if __name__ == "__main__":
    clf = ClassificationModel()
    print(clf.train_model(torch.randint(0, 30522, (4096, 64)), torch.randint(0, 2, (4096,))))
