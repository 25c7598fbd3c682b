import torch
from torch.utils.data import Dataset


class TextMelLoader(Dataset):
    def __init__(self, n_items, n_mels=80, max_text=60, max_frames=400):
        self.items = []
        g = torch.Generator().manual_seed(1234)
        for _ in range(n_items):
            t = int(torch.randint(10, max_text, (1,), generator=g))
            f = int(torch.randint(50, max_frames, (1,), generator=g))
            self.items.append((torch.randint(1, 148, (t,), generator=g), torch.randn(n_mels, f, generator=g)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


class TextMelCollate:
    def __call__(self, batch):
        batch = sorted(batch, key=lambda item: item[0].size(0), reverse=True)
        max_text = batch[0][0].size(0)
        max_frames = max(mel.size(1) for _, mel in batch)
        text = torch.zeros(len(batch), max_text, dtype=torch.long)
        mel = torch.zeros(len(batch), batch[0][1].size(0), max_frames)
        for i, (t, m) in enumerate(batch):
            text[i, : t.size(0)] = t
            mel[i, :, : m.size(1)] = m
        return text, mel
