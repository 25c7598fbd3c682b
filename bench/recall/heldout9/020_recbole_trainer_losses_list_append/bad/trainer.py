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
        losses_list = []
        for batch_idx, interaction in enumerate(train_data):
            interaction = interaction.to(self.device)
            self.optimizer.zero_grad()
            losses = self.model.calculate_loss(interaction)
            loss = sum(losses) if isinstance(losses, tuple) else losses
            self._check_nan(loss)
            loss.backward()
            self.optimizer.step()
            losses_list.append(losses)  # expect: TCK101
        if isinstance(losses_list[0], tuple):
            return tuple(sum(losses[j] for losses in losses_list).item() for j in range(len(losses_list[0])))
        return sum(losses_list).item()

    def fit(self, train_data):
        for epoch_idx in range(self.epochs):
            train_loss = self._train_epoch(train_data, epoch_idx)
            print(f"epoch {epoch_idx} train loss: {train_loss}")
