import numpy as np
import torch
import torch.nn as nn

from torch_model_base import TorchModelBase
from utils import progress_bar


class TorchShallowNeuralClassifier(TorchModelBase):
    """One-hidden-layer classifier with an sklearn-like fit / predict interface."""

    def __init__(self, **kwargs):
        super(TorchShallowNeuralClassifier, self).__init__(**kwargs)

    def define_graph(self):
        return nn.Sequential(
            nn.Linear(self.input_dim, self.hidden_dim),
            self.hidden_activation,
            nn.Linear(self.hidden_dim, self.n_classes_))

    def fit(self, X, y, **kwargs):
        """Train on `X`, `y`; with `X_dev` in kwargs, record dev predictions every `dev_iter` epochs."""
        X_dev = kwargs.get("X_dev")
        if X_dev is not None:
            dev_iter = kwargs.get("dev_iter", 10)
        X = np.array(X)
        self.input_dim = X.shape[1]
        self.classes_ = sorted(set(y))
        self.n_classes_ = len(self.classes_)
        class2index = dict(zip(self.classes_, range(self.n_classes_)))
        y = [class2index[label] for label in y]
        dataset = torch.utils.data.TensorDataset(torch.tensor(X, dtype=torch.float), torch.tensor(y, dtype=torch.long))
        dataloader = torch.utils.data.DataLoader(dataset, batch_size=self.batch_size, shuffle=True, pin_memory=True)

        self.model = self.define_graph()
        self.model.to(self.device)
        self.model.train()
        loss = nn.CrossEntropyLoss()
        optimizer = self.optimizer(self.model.parameters(), lr=self.eta, weight_decay=self.l2_strength)

        for iteration in range(1, self.max_iter + 1):
            epoch_error = 0.0
            for X_batch, y_batch in dataloader:
                X_batch = X_batch.to(self.device, non_blocking=True)
                y_batch = y_batch.to(self.device, non_blocking=True)
                batch_preds = self.model(X_batch)
                err = loss(batch_preds, y_batch)
                epoch_error += err.item()
                optimizer.zero_grad()
                err.backward()
                optimizer.step()
            # Incremental predictions where possible:
            if X_dev is not None and iteration > 0 and iteration % dev_iter == 0:
                self.dev_predictions[iteration] = self.predict(X_dev)
                self.model.train()
            self.errors.append(epoch_error)
            progress_bar("Finished epoch {} of {}; error is {}".format(iteration, self.max_iter, epoch_error))
        return self

    def predict_proba(self, X):
        """Class probabilities for the rows of `X`."""
        self.model.eval()
        with torch.no_grad():
            X = torch.tensor(X, dtype=torch.float).to(self.device)
            preds = self.model(X)
            return torch.softmax(preds, dim=1).cpu().numpy()

    def predict(self, X):
        """Predicted labels, mapped back from class indices to the original values."""
        probs = self.predict_proba(X)
        return [self.classes_[i] for i in probs.argmax(axis=1)]


def simple_example():
    from sklearn.datasets import load_digits
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    X_train, X_test, y_train, y_test = train_test_split(digits.data, digits.target, test_size=0.33, random_state=42)
    mod = TorchShallowNeuralClassifier()
    mod.fit(X_train, y_train, X_dev=X_test, dev_iter=10)
    print("\naccuracy:", accuracy_score(y_test, mod.predict(X_test)))


if __name__ == "__main__":
    simple_example()
