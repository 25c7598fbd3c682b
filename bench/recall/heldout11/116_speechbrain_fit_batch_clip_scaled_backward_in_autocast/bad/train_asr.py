import torch
import torch.nn.functional as F

from core import Brain, Stage


class Encoder(torch.nn.Module):
    def __init__(self, n_feats=40, hidden=128):
        super().__init__()
        self.rnn = torch.nn.LSTM(n_feats, hidden, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


class ASRBrain(Brain):
    def compute_forward(self, batch, stage):
        feats, _ = batch
        enc = self.modules["encoder"](feats.to(self.device))
        return self.modules["ctc_lin"](enc).log_softmax(dim=-1)

    def compute_objectives(self, predictions, batch, stage):
        _, tokens = batch
        tokens = tokens.to(self.device)
        input_lens = torch.full((predictions.size(0),), predictions.size(1), dtype=torch.long)
        target_lens = torch.full((tokens.size(0),), tokens.size(1), dtype=torch.long)
        return F.ctc_loss(predictions.transpose(0, 1), tokens, input_lens, target_lens, blank=0, zero_infinity=True)


if __name__ == "__main__":
    modules = {"encoder": Encoder(), "ctc_lin": torch.nn.Linear(128, 32)}
    use_cuda = torch.cuda.is_available()
    brain = ASRBrain(modules, lambda params: torch.optim.Adam(params, lr=1e-3), hparams={},
                     run_opts={"device": "cuda" if use_cuda else "cpu", "auto_mix_prec": use_cuda, "max_grad_norm": 5.0})
    data = [(torch.randn(8, 100, 40), torch.randint(1, 32, (8, 20))) for _ in range(10)]
    brain.fit(2, data)
