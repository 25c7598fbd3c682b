import torch

from .det_engine import train_one_epoch


class DetSolver:
    def __init__(self, model, criterion, train_dataloader, use_amp=True, clip_max_norm=0.1, epochs=72):
        self.device = torch.device("cuda")
        self.model = model.to(self.device)
        self.criterion = criterion
        self.train_dataloader = train_dataloader
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4, weight_decay=1e-4)
        self.scaler = torch.amp.GradScaler("cuda") if use_amp and torch.cuda.is_available() else None
        self.clip_max_norm = clip_max_norm
        self.epochs = epochs

    def fit(self):
        for epoch in range(self.epochs):
            train_one_epoch(
                self.model, self.criterion, self.train_dataloader, self.optimizer, self.device, epoch,
                max_norm=self.clip_max_norm, print_freq=100, scaler=self.scaler,
            )
            torch.save(
                {
                    "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scaler": self.scaler.state_dict() if self.scaler is not None else None,
                    "last_epoch": epoch,
                },
                f"checkpoint{epoch:04}.pth",
            )
