import torch

from base_operator import BaseOperator


class MLPModel(BaseOperator, torch.nn.Module):
    """Tensor implementation of a trained scikit-learn MLPClassifier."""

    def __init__(self, weights, biases, activation, classes, device):
        super().__init__(classification=True)
        self.weights = [torch.nn.Parameter(torch.from_numpy(w.astype("float32")), requires_grad=False) for w in weights]  # expect: TCK602
        self.biases = [torch.nn.Parameter(torch.from_numpy(b.astype("float32")), requires_grad=False) for b in biases]  # expect: TCK602
        self.activation = activation
        self.classes = torch.nn.Parameter(torch.tensor(classes, dtype=torch.int32), requires_grad=False)
        self.perform_class_select = min(classes) != 0 or max(classes) != len(classes) - 1
        self.binary_classification = len(classes) == 2

    def forward(self, x):
        for i in range(len(self.weights) - 1):
            x = torch.addmm(self.biases[i], x, self.weights[i])
            if self.activation == "relu":
                x = torch.relu(x)
            elif self.activation == "logistic":
                x = torch.sigmoid(x)
            elif self.activation == "tanh":
                x = torch.tanh(x)
            elif self.activation != "identity":
                raise RuntimeError(f"Unsupported activation {self.activation}")
        x = torch.addmm(self.biases[-1], x, self.weights[-1])
        if self.binary_classification:
            output = torch.sigmoid(x)
            output = torch.cat([1 - output, output], dim=1)
        else:
            output = torch.softmax(x, dim=1)
        if self.perform_class_select:
            return torch.index_select(self.classes, 0, torch.argmax(output, dim=1)), output
        return torch.argmax(output, dim=1), output
