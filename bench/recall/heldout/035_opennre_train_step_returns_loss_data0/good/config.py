import torch


class Config:
    def __init__(self, train_model, optimizer, device):
        self.trainModel = train_model
        self.optimizer = optimizer
        self.device = device

    def train_one_step(self, batch_word, batch_pos1, batch_pos2, batch_label):
        self.trainModel.train()
        self.optimizer.zero_grad()
        words = torch.as_tensor(batch_word, device=self.device)
        loss, _output = self.trainModel(words, batch_pos1, batch_pos2, batch_label)
        loss.backward()
        self.optimizer.step()
        return loss.item()
