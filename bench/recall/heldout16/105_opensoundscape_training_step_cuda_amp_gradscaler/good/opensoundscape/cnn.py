import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


class BaseModule:
    """Training logic shared by the plain PyTorch classifier and the Lightning module."""

    def __init__(self):
        self.use_amp = False
        self.lightning_mode = False

    def training_step(self, samples, batch_idx):
        batch_tensors, batch_labels = samples
        batch_tensors = batch_tensors.to(self.device)
        batch_labels = batch_labels.to(self.device)

        self.scaler = torch.amp.GradScaler("cuda", enabled=self.use_amp)
        if "cuda" in str(self.device):
            device_type, dtype = "cuda", torch.float16
        else:
            device_type, dtype = "cpu", torch.bfloat16
        with torch.autocast(device_type=device_type, dtype=dtype, enabled=self.use_amp):
            output = self.network(batch_tensors)
            loss = self.loss_fn(output, batch_labels)
        if not self.lightning_mode:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
        return loss


class SpectrogramClassifier(BaseModule, torch.nn.Module):
    def __init__(self, classes, sample_duration, architecture="resnet18"):
        torch.nn.Module.__init__(self)
        BaseModule.__init__(self)
        self.classes = classes
        self.sample_duration = sample_duration
        self.network = torch.nn.Sequential(
            torch.nn.Conv2d(1, 32, 3, padding=1),
            torch.nn.BatchNorm2d(32),
            torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1),
            torch.nn.Flatten(),
            torch.nn.Linear(32, len(classes)),
        )
        self.loss_fn = torch.nn.BCEWithLogitsLoss()
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.optimizer = None

    def forward(self, x):
        return self.network(x)

    def train(self, train_dataset=None, epochs=1, batch_size=32, num_workers=0, mode=True):
        if train_dataset is None:  # called as nn.Module.train(mode)
            return torch.nn.Module.train(self, mode)
        self.network.to(self.device)
        self.optimizer = torch.optim.AdamW(self.network.parameters(), lr=1e-3)
        loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers)
        for epoch in range(epochs):
            torch.nn.Module.train(self, True)
            for batch_idx, samples in enumerate(loader):
                loss = self.training_step(samples, batch_idx)
                if batch_idx % 50 == 0:
                    print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.4f}")
        return self

    @torch.no_grad()
    def predict(self, samples):
        torch.nn.Module.train(self, False)
        return torch.sigmoid(self.network(samples.to(self.device)))
