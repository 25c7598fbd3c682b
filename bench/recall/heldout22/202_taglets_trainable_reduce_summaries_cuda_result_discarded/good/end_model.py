import torch

from trainable import Trainable


class EndModel(Trainable):
    """Trained on the soft labels that the taglets vote for."""

    def __init__(self, task):
        super().__init__(task)
        self.name = "end model"
        self.criterion = self.soft_cross_entropy

    @staticmethod
    def soft_cross_entropy(outputs, target):
        return -(target * torch.log_softmax(outputs, dim=1)).sum(dim=1).mean()

    @staticmethod
    def _get_train_acc(outputs, labels):
        return torch.sum(torch.max(outputs, 1)[1] == torch.max(labels, 1)[1])
