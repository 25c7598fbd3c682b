import torch
from torch.utils.data import Dataset

from curriculum_learning import CurriculumTrainer


class SyntheticCaptionSet(Dataset):
    def __init__(self, n=2048, length=256, text_len=32):
        self.series = torch.randn(n, length)
        self.input_ids = torch.randint(1, 32000, (n, text_len))

    def __len__(self):
        return len(self.series)

    def __getitem__(self, idx):
        return {"series": self.series[idx], "input_ids": self.input_ids[idx]}


if __name__ == "__main__":
    stages = [("mcq", SyntheticCaptionSet()), ("captioning", SyntheticCaptionSet(text_len=64))]
    CurriculumTrainer(stages).run()
