import torch
import torch.nn as nn


class Model(nn.Module):
    """Feed-forward network built from a hyperparameter dictionary."""

    def __init__(self, state_size, action_size, hyperparameters):
        super().__init__()
        self.model = self.create_vanilla_nn(state_size, action_size, hyperparameters)

    def forward(self, state):
        return self.model(state)

    def create_vanilla_nn(self, state_size, action_size, hyperparameters):
        model_layers = self.create_model_layers(state_size, action_size, hyperparameters)
        model = nn.Sequential(*model_layers)
        model.apply(self.xavier_initialisation)
        return model

    def create_model_layers(self, state_size, action_size, hyperparameters):
        model_layers = []
        input_dim = state_size
        for layer_num in range(hyperparameters["nn_layers"] - 1):
            output_dim = int(hyperparameters["nn_start_units"] * hyperparameters["nn_unit_decay"] ** layer_num)
            self.add_linear_layer(input_dim, output_dim, model_layers)
            if hyperparameters["batch_norm"]:
                model_layers.append(nn.BatchNorm1d(output_dim))
            model_layers.append(nn.ReLU())
            input_dim = output_dim
        self.add_linear_layer(input_dim, action_size, model_layers)
        if hyperparameters["final_layer_activation"] == "SOFTMAX":
            self.add_softmax_layer(model_layers)
        elif hyperparameters["final_layer_activation"] == "TANH":
            model_layers.append(nn.Tanh())
        return model_layers

    def add_linear_layer(self, input_dim, output_dim, model_layers):
        model_layers.append(nn.Linear(input_dim, output_dim))

    def add_softmax_layer(self, model_layers):
        model_layers.append(torch.nn.Softmax(dim=1))

    @staticmethod
    def xavier_initialisation(layer):
        if isinstance(layer, nn.Linear):
            nn.init.xavier_normal_(layer.weight)
