import os

import torch
from torch import nn


def define_G(args):
    return nn.Sequential(nn.Conv2d(6, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 2, 1))


class CDTrainer:
    def __init__(self, args, dataloaders):
        self.args = args
        self.dataloaders = dataloaders
        self.device = torch.device("cuda")
        self.net_G = define_G(args).to(self.device)
        self.optimizer_G = torch.optim.AdamW(self.net_G.parameters(), lr=args.lr)
        self.checkpoint_dir = args.checkpoint_dir

    def _save_checkpoint(self, ckpt_name):
        torch.save({"model_G_state_dict": self.net_G.state_dict(), "optimizer_G_state_dict": self.optimizer_G.state_dict()}, os.path.join(self.checkpoint_dir, ckpt_name))

    def train_models(self):
        for epoch in range(self.args.max_epochs):
            for batch in self.dataloaders["train"]:
                pred = self.net_G(torch.cat([batch["A"], batch["B"]], dim=1).to(self.device))
                loss = nn.functional.cross_entropy(pred, batch["L"].to(self.device))
                self.optimizer_G.zero_grad()
                loss.backward()
                self.optimizer_G.step()
            self._save_checkpoint("best_ckpt.pt")


class CDEvaluator:
    def __init__(self, args, dataloader):
        self.args = args
        self.dataloader = dataloader
        self.device = torch.device("cuda")
        self.checkpoint_dir = args.checkpoint_dir
        self.net_G = define_G(args).to(self.device)

    def _load_checkpoint(self, ckpt_name="best_ckpt.pt"):
        checkpoint = torch.load(os.path.join(self.checkpoint_dir, ckpt_name), map_location=self.device)
        self.net_G.load_state_dict(checkpoint["model_G_state_dict"])
        self.net_G.eval()
        self.net_G = torch.compile(self.net_G)

    def eval_models(self):
        self._load_checkpoint()
        with torch.no_grad():
            return [self.net_G(torch.cat([b["A"], b["B"]], dim=1).to(self.device)).argmax(1) for b in self.dataloader]
