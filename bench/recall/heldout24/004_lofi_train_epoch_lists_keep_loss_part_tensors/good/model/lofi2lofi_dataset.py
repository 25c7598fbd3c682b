import json
import os

import torch
from torch.utils.data import Dataset

from model.constants import MAX_CHORD_LENGTH, NOTES_PER_CHORD


class Lofi2LofiDataset(Dataset):
    def __init__(self, folder, files):
        self.samples = []
        for name in files:
            with open(os.path.join(folder, name)) as f:
                self.samples.append(json.load(f))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        s = self.samples[index]
        chords = torch.zeros(MAX_CHORD_LENGTH + 1, dtype=torch.long)
        chords[:len(s["chords"])] = torch.tensor(s["chords"])
        notes = torch.zeros((MAX_CHORD_LENGTH + 1) * NOTES_PER_CHORD, dtype=torch.long)
        notes[:len(s["melodies"])] = torch.tensor(s["melodies"])
        return {
            "chords": chords, "melody_notes": notes, "num_chords": torch.tensor(len(s["chords"])),
            "tempo": torch.tensor(s["tempo"], dtype=torch.float), "key": torch.tensor(s["key"]),
            "mode": torch.tensor(s["mode"]), "valence": torch.tensor(s["valence"], dtype=torch.float),
            "energy": torch.tensor(s["energy"], dtype=torch.float),
        }
