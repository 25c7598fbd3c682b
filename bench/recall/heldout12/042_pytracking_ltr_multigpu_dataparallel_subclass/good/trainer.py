import torch
import torch.distributed as dist


class LTRTrainer:
    def __init__(self, actor, loader, optimizer, lr_scheduler, device="cuda"):
        self.actor = actor
        self.loader = loader
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.device = device

    def train_epoch(self, epoch):
        self.actor.net.train()
        self.loader.sampler.set_epoch(epoch)
        for i, (template, search, label) in enumerate(self.loader, 1):
            template, search, label = template.to(self.device), search.to(self.device), label.to(self.device)
            loss, stats = self.actor(template, search, label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if i % 50 == 0 and dist.get_rank() == 0:
                print(f"[{epoch}: {i}/{len(self.loader)}] {stats}")

    def train(self, max_epochs):
        for epoch in range(1, max_epochs + 1):
            self.train_epoch(epoch)
            self.lr_scheduler.step()
            if dist.get_rank() == 0:
                torch.save({"epoch": epoch, "net": self.actor.net.module.state_dict()}, f"checkpoint_ep{epoch:04d}.pth.tar")
