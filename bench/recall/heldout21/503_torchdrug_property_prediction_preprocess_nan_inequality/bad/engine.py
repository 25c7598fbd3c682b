import logging

import torch
from torch.utils import data as torch_data

logger = logging.getLogger(__name__)


def graph_collate(samples):
    batch = {"graph": torch.stack([s["graph"] for s in samples])}
    for key in samples[0]:
        if key != "graph":
            batch[key] = torch.tensor([s[key] for s in samples], dtype=torch.float)
    return batch


class Engine:
    """Runs a task: calls its optional `preprocess` hook on the splits, then trains it."""

    def __init__(self, task, train_set, valid_set, test_set, optimizer, batch_size=32, num_worker=0):
        if hasattr(task, "preprocess"):
            logger.warning("Preprocess training set")
            old_params = list(task.parameters())
            result = task.preprocess(train_set, valid_set, test_set)
            if result is not None:
                train_set, valid_set, test_set = result
            new_params = list(task.parameters())
            if len(new_params) != len(old_params):
                optimizer.add_param_group({"params": new_params[len(old_params):]})
        self.model = task
        self.train_set, self.valid_set, self.test_set = train_set, valid_set, test_set
        self.optimizer = optimizer
        self.batch_size = batch_size
        self.num_worker = num_worker

    def train(self, num_epoch=1):
        loader = torch_data.DataLoader(self.train_set, self.batch_size, shuffle=True,
                                       num_workers=self.num_worker, collate_fn=graph_collate)
        self.model.train()
        for epoch in range(num_epoch):
            for batch in loader:
                loss = self.model(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            logger.warning("epoch %d loss %.4f", epoch, loss.item())

    @torch.no_grad()
    def evaluate(self, split):
        dataset = getattr(self, "%s_set" % split)
        loader = torch_data.DataLoader(dataset, self.batch_size, collate_fn=graph_collate)
        self.model.eval()
        preds, targets = [], []
        for batch in loader:
            preds.append(self.model.predict(batch))
            targets.append(self.model.target(batch))
        return self.model.evaluate(torch.cat(preds), torch.cat(targets))
