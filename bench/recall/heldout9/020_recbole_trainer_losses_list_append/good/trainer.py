import torch
import torch.optim as optim


class Trainer:
    def __init__(self, config, model):
        self.config = config
        self.model = model
        self.device = config["device"]
        self.epochs = config["epochs"]
        self.optimizer = optim.Adam(self.model.parameters(), lr=config["learning_rate"])

    def _check_nan(self, loss):
        if torch.isnan(loss):
            raise ValueError("Training loss is nan")

    def _train_epoch(self, train_data, epoch_idx):
        self.model.train()
        total_loss = None
        for batch_idx, interaction in enumerate(train_data):
            interaction = interaction.to(self.device)
            self.optimizer.zero_grad()
            losses = self.model.calculate_loss(interaction)
            if isinstance(losses, tuple):
                loss = sum(losses)
                loss_tuple = tuple(per_loss.item() for per_loss in losses)
                total_loss = loss_tuple if total_loss is None else tuple(map(sum, zip(total_loss, loss_tuple)))
            else:
                loss = losses
                total_loss = losses.item() if total_loss is None else total_loss + losses.item()
            self._check_nan(loss)
            loss.backward()
            self.optimizer.step()
        return total_loss

    def fit(self, train_data):
        for epoch_idx in range(self.epochs):
            train_loss = self._train_epoch(train_data, epoch_idx)
            print(f"epoch {epoch_idx} train loss: {train_loss}")
