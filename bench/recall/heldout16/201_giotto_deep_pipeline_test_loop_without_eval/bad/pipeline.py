import torch
import torch.nn.functional as F


class Pipeline:
    """Benchmark one model on a train/test pair of dataloaders."""

    def __init__(self, model, dataloaders, loss_fn, writer):
        self.model = model
        assert len(dataloaders) in (2, 3)
        self.dataloaders = dataloaders
        self.loss_fn = loss_fn
        self.writer = writer
        self.optimizer = None

    def _train_loop(self):
        size = len(self.dataloaders[0].dataset)
        for batch, (X, y) in enumerate(self.dataloaders[0]):
            pred = self.model(X)
            loss = self.loss_fn(pred, y)
            self.writer.add_scalar("Loss/train", loss.item(), batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if batch % 100 == 0:
                print(f"loss: {loss.item():>7f}  [{batch * len(X):>5d}/{size:>5d}]")
        self.writer.flush()

    def _test_loop(self):
        size = len(self.dataloaders[1].dataset)
        test_loss, correct = 0.0, 0.0
        probs, labels = [], []
        with torch.no_grad():
            for X, y in self.dataloaders[1]:
                pred = self.model(X)  # expect: TCK114
                probs.append(F.softmax(pred, dim=1))
                labels.append(y)
                test_loss += self.loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).float().sum().item()
            test_probs = torch.cat(probs)
            test_labels = torch.cat(labels)
            for class_index in range(test_probs.shape[1]):
                self.writer.add_pr_curve(
                    str(class_index),
                    test_labels == class_index,
                    test_probs[:, class_index],
                    global_step=0,
                )
        self.writer.flush()
        print(f"Test accuracy: {100 * correct / size:>0.1f}%, avg loss: {test_loss / size:>8f}")

    def train(self, optimizer, n_epochs=10, **kwargs):
        self.optimizer = optimizer(self.model.parameters(), **kwargs)
        for epoch in range(n_epochs):
            print(f"Epoch {epoch + 1}")
            self._train_loop()
            self._test_loop()
        self.writer.close()
