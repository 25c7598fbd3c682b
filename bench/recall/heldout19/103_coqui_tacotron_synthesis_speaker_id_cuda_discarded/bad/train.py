import torch
import torch.nn as nn

from synthesis import synthesis

TEST_SENTENCES = [
    "It took me quite a long time to develop a voice.",
    "Be a voice, not an echo.",
]


class MultiSpeakerTacotron(nn.Module):
    def __init__(self, n_chars=64, n_speakers=8, hidden=256, n_mels=80):
        super().__init__()
        self.embedding = nn.Embedding(n_chars, hidden)
        self.speaker_embedding = nn.Embedding(n_speakers, hidden)
        self.decoder = nn.GRU(hidden, hidden, batch_first=True)
        self.mel_proj = nn.Linear(hidden, n_mels)
        self.postnet = nn.Linear(n_mels, n_mels)
        self.stopnet = nn.Linear(hidden, 1)

    def forward(self, chars, speaker_ids):
        x = self.embedding(chars) + self.speaker_embedding(speaker_ids).unsqueeze(1)
        out, _ = self.decoder(x)
        mel = self.mel_proj(out)
        return mel, self.postnet(mel), out, self.stopnet(out)

    @torch.no_grad()
    def inference(self, chars, speaker_ids=None):
        if speaker_ids is None:
            speaker_ids = torch.zeros(chars.size(0), dtype=torch.long, device=chars.device)
        return self(chars, speaker_ids)


def evaluate(model, ap, char_to_id, use_cuda, use_speaker_embedding):
    model.eval()
    speaker_id = 0 if use_speaker_embedding else None
    test_audios = {}
    for idx, sentence in enumerate(TEST_SENTENCES):
        wav, alignment, _, _, _ = synthesis(model, sentence, char_to_id, use_cuda, ap, speaker_id=speaker_id)
        test_audios["{}-audio".format(idx)] = wav
    return test_audios
