from model import Tagger


class Trainer:
    def __init__(self, model: Tagger, optimizer, iterator):
        self._model = model
        self._optimizer = optimizer
        self._iterator = iterator

    def _batch_loss(self, batch):
        output_dict = self._model(**batch)
        return output_dict["loss"]

    def train_epoch(self):
        self._model.train()
        total = 0.0
        for batch in self._iterator:
            self._optimizer.zero_grad()
            loss = self._batch_loss(batch)
            loss.backward()
            self._optimizer.step()
            total += loss.item()
        return total
