import torch
from torch.nn.utils import clip_grad_norm_


class TransformerBasedClassification:
    def __init__(self, model, criterion, validations_per_epoch=1, max_grad_norm=1.0):
        self.model = model
        self.criterion = criterion
        self.validations_per_epoch = validations_per_epoch
        self.max_grad_norm = max_grad_norm

    def _train_loop_epoch(self, train_loader, valid_loader, optimizer, scheduler):
        self.model.train()
        validate_every = max(len(train_loader) // self.validations_per_epoch, 1)
        train_loss = 0.0
        valid_losses = []
        for i, (x, masks, cls) in enumerate(train_loader):
            optimizer.zero_grad()
            logits = self.model(x, attention_mask=masks)
            loss = self.criterion(logits, cls)
            loss.backward()
            clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
            optimizer.step()
            scheduler.step()
            train_loss += loss.item()
            if self.validations_per_epoch > 1 and (i + 1) % validate_every == 0:
                valid_losses.append(self.validate(valid_loader))
                self.model.train()
        return train_loss / len(train_loader), valid_losses

    def validate(self, valid_loader):
        valid_loss = 0.0
        with torch.no_grad():
            self.model.eval()
            for x, masks, cls in valid_loader:
                logits = self.model(x, attention_mask=masks)
                valid_loss += self.criterion(logits, cls).item()
        return valid_loss / len(valid_loader)
