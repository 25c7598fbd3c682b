import torch
from torch import nn


class TrainModel:
    def __init__(self, model, criterion, optimizer, sampler, batch_size=64, use_cuda=False):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.sampler = sampler
        self.batch_size = batch_size
        self.use_cuda = use_cuda
        if self.use_cuda:
            self.model.cuda()
            self.criterion.cuda()

    def _get_batch(self):
        sequences, targets = self.sampler.sample(batch_size=self.batch_size)
        return torch.from_numpy(sequences).float(), torch.from_numpy(targets).float()

    def train(self):
        self.model.train()
        inputs, targets = self._get_batch()
        if self.use_cuda:
            inputs = inputs.cuda()
            targets = targets.cuda()

        predictions = self.model(inputs.transpose(1, 2))
        loss = self.criterion(predictions, targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _evaluate_on_data(self, data_in_batches):
        self.model.eval()
        batch_losses = []
        all_predictions = []
        for inputs, targets in data_in_batches:
            inputs = torch.from_numpy(inputs).float()
            targets = torch.from_numpy(targets).float()
            if self.use_cuda:
                inputs = inputs.cuda()
                targets = targets.cuda()
            with torch.no_grad():
                predictions = self.model(inputs.transpose(1, 2))
                loss = self.criterion(predictions, targets)
                all_predictions.append(predictions.cpu())
                batch_losses.append(loss.item())
        return sum(batch_losses) / len(batch_losses), torch.cat(all_predictions)

    def train_and_validate(self, n_steps, validation_data, report_every=100):
        for step in range(n_steps):
            train_loss = self.train()
            if (step + 1) % report_every == 0:
                valid_loss, _ = self._evaluate_on_data(validation_data)
                print(f"step {step + 1}: train {train_loss:.4f} valid {valid_loss:.4f}")
