import numpy as np
import torch
from torch import nn, optim


class Encoder(nn.Module):
    def __init__(self, T, input_size, encoder_num_hidden):
        super().__init__()
        self.T = T
        self.input_size = input_size
        self.encoder_num_hidden = encoder_num_hidden
        self.encoder_lstm = nn.LSTM(input_size=input_size, hidden_size=encoder_num_hidden, batch_first=True)
        self.encoder_attn = nn.Linear(2 * encoder_num_hidden + T - 1, 1)

    def forward(self, X):
        h_n = X.new_zeros(1, X.size(0), self.encoder_num_hidden)
        s_n = X.new_zeros(1, X.size(0), self.encoder_num_hidden)
        encoded = []
        for t in range(self.T - 1):
            x = torch.cat((h_n.repeat(self.input_size, 1, 1).permute(1, 0, 2),
                           s_n.repeat(self.input_size, 1, 1).permute(1, 0, 2),
                           X.permute(0, 2, 1)), dim=2)
            alpha = torch.softmax(self.encoder_attn(x).squeeze(-1), dim=1)
            x_tilde = alpha * X[:, t, :]
            _, (h_n, s_n) = self.encoder_lstm(x_tilde.unsqueeze(1), (h_n, s_n))
            encoded.append(h_n[0])
        return torch.stack(encoded, dim=1)


class Decoder(nn.Module):
    def __init__(self, T, decoder_num_hidden, encoder_num_hidden):
        super().__init__()
        self.T = T
        self.attn = nn.Sequential(nn.Linear(2 * decoder_num_hidden + encoder_num_hidden, encoder_num_hidden),
                                  nn.Tanh(), nn.Linear(encoder_num_hidden, 1))
        self.lstm = nn.LSTM(input_size=1, hidden_size=decoder_num_hidden, batch_first=True)
        self.fc = nn.Linear(encoder_num_hidden + 1, 1)
        self.fc_final = nn.Linear(decoder_num_hidden + encoder_num_hidden, 1)
        self.decoder_num_hidden = decoder_num_hidden

    def forward(self, X_encoded, y_prev):
        d_n = X_encoded.new_zeros(1, X_encoded.size(0), self.decoder_num_hidden)
        c_n = X_encoded.new_zeros(1, X_encoded.size(0), self.decoder_num_hidden)
        for t in range(self.T - 1):
            x = torch.cat((d_n.repeat(self.T - 1, 1, 1).permute(1, 0, 2),
                           c_n.repeat(self.T - 1, 1, 1).permute(1, 0, 2), X_encoded), dim=2)
            beta = torch.softmax(self.attn(x).squeeze(-1), dim=1)
            context = torch.bmm(beta.unsqueeze(1), X_encoded)[:, 0, :]
            y_tilde = self.fc(torch.cat((context, y_prev[:, t].unsqueeze(1)), dim=1))
            _, (d_n, c_n) = self.lstm(y_tilde.unsqueeze(1), (d_n, c_n))
        return self.fc_final(torch.cat((d_n[0], context), dim=1))


class DA_RNN(nn.Module):
    def __init__(self, X, y, T, encoder_num_hidden, decoder_num_hidden, batch_size, learning_rate, epochs):
        super().__init__()
        self.X, self.y, self.T = X, y, T
        self.batch_size = batch_size
        self.epochs = epochs
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        self.Encoder = Encoder(T=T, input_size=X.shape[1], encoder_num_hidden=encoder_num_hidden).to(self.device)
        self.Decoder = Decoder(T=T, decoder_num_hidden=decoder_num_hidden, encoder_num_hidden=encoder_num_hidden).to(self.device)
        self.criterion = nn.MSELoss()
        self.encoder_optimizer = optim.Adam(self.Encoder.parameters(), lr=learning_rate)
        self.decoder_optimizer = optim.Adam(self.Decoder.parameters(), lr=learning_rate)
        self.train_timesteps = int(X.shape[0] * 0.7)

    def _window(self, starts):
        x = np.stack([self.X[s:s + self.T - 1] for s in starts])
        y_prev = np.stack([self.y[s:s + self.T - 1] for s in starts])
        as_tensor = lambda a: torch.from_numpy(a).float().to(self.device)
        return as_tensor(x), as_tensor(y_prev)

    def train(self):  # expect: TCK610
        self.epoch_losses = np.zeros(self.epochs)
        for epoch in range(self.epochs):
            starts = np.random.permutation(self.train_timesteps - self.T)
            losses = []
            for i in range(0, len(starts), self.batch_size):
                batch = starts[i:i + self.batch_size]
                x, y_prev = self._window(batch)
                y_gt = torch.from_numpy(self.y[batch + self.T]).float().to(self.device).view(-1, 1)
                self.encoder_optimizer.zero_grad()
                self.decoder_optimizer.zero_grad()
                loss = self.criterion(self.Decoder(self.Encoder(x), y_prev), y_gt)
                loss.backward()
                self.encoder_optimizer.step()
                self.decoder_optimizer.step()
                losses.append(loss.item())
            self.epoch_losses[epoch] = np.mean(losses)
            print(f"epoch {epoch} loss {self.epoch_losses[epoch]:.5f}")

    def test(self):
        starts = np.arange(self.train_timesteps - self.T, self.X.shape[0] - self.T)
        preds = []
        with torch.no_grad():
            for i in range(0, len(starts), self.batch_size):
                x, y_prev = self._window(starts[i:i + self.batch_size])
                preds.append(self.Decoder(self.Encoder(x), y_prev).cpu().numpy()[:, 0])
        return np.concatenate(preds)
