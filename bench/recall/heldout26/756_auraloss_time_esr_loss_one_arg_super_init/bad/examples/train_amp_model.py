"""Fit a small recurrent model of a guitar amplifier with the ESR + DC loss of Wright & Välimäki."""
import torch

import auraloss


class AmpRNN(torch.nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = torch.nn.LSTM(1, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.rnn(x.transpose(1, 2))
        return self.out(h).transpose(1, 2) + x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = AmpRNN().to(device)
esr = auraloss.time.ESRLoss()
dc = auraloss.time.DCLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)

for step in range(500):
    clean = torch.randn(8, 1, 4410, device=device)
    amped = torch.tanh(3.0 * clean)
    pred = model(clean)
    loss = esr(pred, amped) + dc(pred, amped)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
