import torch
from fairscale.nn.data_parallel import FullyShardedDataParallel as FSDP


class Trainer:
    def __init__(self, model, args, train_loader):
        self.model = model
        self.args = args
        self.train_loader = train_loader
        self.optimizer = None

    def create_optimizer(self):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate, weight_decay=self.args.weight_decay)  # expect: TCK211

    def _wrap_model(self, model):
        return FSDP(model, mixed_precision=self.args.fp16)

    def train(self):
        self.create_optimizer()
        self.model = self._wrap_model(self.model.cuda())
        self.model.train()
        for batch in self.train_loader:
            loss = self.model(**batch).loss
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
