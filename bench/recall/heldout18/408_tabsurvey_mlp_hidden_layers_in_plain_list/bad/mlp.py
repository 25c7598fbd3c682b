import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from basemodel import BaseModel


class MLP(BaseModel, nn.Module):
    def __init__(self, params, args):
        BaseModel.__init__(self, params, args)
        nn.Module.__init__(self)

        input_dim = self.args.num_features
        hidden_dim = self.params["hidden_dim"]
        output_dim = self.args.num_classes

        self.input_layer = nn.Linear(input_dim, hidden_dim)

        self.hidden_layers = []  # expect: TCK601
        for i in range(self.params["n_layers"] - 1):
            self.hidden_layers.append(nn.Linear(hidden_dim, hidden_dim))

        self.output_layer = nn.Linear(hidden_dim, output_dim)

    def forward(self, x):
        x = F.relu(self.input_layer(x))
        for i in range(self.params["n_layers"] - 1):
            x = F.relu(self.hidden_layers[i](x))
        return self.output_layer(x)

    def fit(self, X, y, X_val=None, y_val=None):
        optimizer = optim.AdamW(self.parameters(), lr=self.params["learning_rate"])
        X = torch.tensor(X).float()
        y = torch.tensor(y)
        if self.args.objective == "regression":
            loss_func = nn.MSELoss()
            y = y.float()
        else:
            loss_func = nn.CrossEntropyLoss()

        train_loader = DataLoader(TensorDataset(X, y), batch_size=self.params["batch_size"], shuffle=True)
        for epoch in range(self.args.epochs):
            for batch_X, batch_y in train_loader:
                out = self(batch_X)
                if self.args.objective == "regression":
                    out = out.squeeze()
                loss = loss_func(out, batch_y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

    def predict(self, X):
        X = torch.tensor(X).float()
        with torch.no_grad():
            out = self(X)
            if self.args.objective == "classification":
                out = F.softmax(out, dim=1)
        self.predictions = out.numpy()
        return self.predictions

    def save_model(self, filename_extension=""):
        path = os.path.join("output", self.args.model_name, self.args.dataset, "models")
        os.makedirs(path, exist_ok=True)
        torch.save(self.state_dict(), os.path.join(path, "m_" + str(filename_extension) + ".pt"))
