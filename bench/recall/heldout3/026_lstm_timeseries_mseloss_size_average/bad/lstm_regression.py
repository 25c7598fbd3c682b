import torch
import torch.nn as nn


class LSTM(nn.Module):
    def __init__(self, input_dim, hidden_dim, batch_size, output_dim=1, num_layers=2):
        super(LSTM, self).__init__()
        self.batch_size = batch_size
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers)
        self.linear = nn.Linear(hidden_dim, output_dim)

    def forward(self, input):
        lstm_out, _ = self.lstm(input.view(len(input), self.batch_size, -1))
        return self.linear(lstm_out[-1].view(self.batch_size, -1)).view(-1)


def fit(model, X_train, y_train, num_epochs, learning_rate=1e-3):
    loss_fn = torch.nn.MSELoss(size_average=False)  # expect: TCK916
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    for t in range(num_epochs):
        y_pred = model(X_train)
        loss = loss_fn(y_pred, y_train)
        if t % 100 == 0:
            print("Epoch", t, "MSE:", loss.item())
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
