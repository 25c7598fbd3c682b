import torch
import torch.nn as nn


class DeepSpeech(nn.Module):
    def __init__(self, labels, audio_conf, hidden=256):
        super().__init__()
        self.labels = labels
        self.audio_conf = audio_conf
        freq = int(audio_conf["sample_rate"] * audio_conf["window_size"]) // 2 + 1
        self.conv = nn.Sequential(nn.Conv2d(1, 32, (11, 41), stride=(2, 2), padding=(5, 20)), nn.Hardtanh(0, 20))
        self.rnn = nn.GRU(32 * ((freq + 1) // 2), hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, len(labels))

    def forward(self, x, lengths):
        x = self.conv(x)
        b, c, f, t = x.shape
        x, _ = self.rnn(x.view(b, c * f, t).transpose(1, 2))
        out = self.fc(x).log_softmax(-1)
        return out, (lengths + 1) // 2


def load_model(device, model_path):
    package = torch.load(model_path, map_location="cpu", weights_only=True)
    model = DeepSpeech(package["labels"], package["audio_conf"])
    model.load_state_dict(package["state_dict"])
    model.eval()
    return model.to(device)
