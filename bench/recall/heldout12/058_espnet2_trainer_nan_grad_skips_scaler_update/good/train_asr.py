import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from trainer import Trainer


class TinyCTCModel(nn.Module):
    def __init__(self, n_mels=80, vocab=32, hidden=256):
        super().__init__()
        self.encoder = nn.LSTM(n_mels, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)
        self.ctc = nn.CTCLoss(blank=0, zero_infinity=False)

    def forward(self, speech, text):
        enc, _ = self.encoder(speech)
        log_probs = self.head(enc).log_softmax(dim=-1).transpose(0, 1)
        in_lens = torch.full((speech.size(0),), speech.size(1), dtype=torch.long)
        out_lens = torch.full((text.size(0),), text.size(1), dtype=torch.long)
        return self.ctc(log_probs.float(), text, in_lens, out_lens)


def main():
    device = "cuda"
    model = TinyCTCModel().to(device)
    data = TensorDataset(torch.randn(256, 120, 80), torch.randint(1, 32, (256, 20)))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    iterator = ((s.to(device), t.to(device)) for s, t in loader)
    optimizers = [torch.optim.Adam(model.parameters(), lr=1e-3)]
    schedulers = [torch.optim.lr_scheduler.StepLR(optimizers[0], step_size=100, gamma=0.5)]
    scaler = torch.amp.GradScaler("cuda")
    invalid = Trainer.train_one_epoch(model, iterator, optimizers, schedulers, scaler)
    print("all steps invalid:", invalid)


if __name__ == "__main__":
    main()
