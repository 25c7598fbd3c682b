import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, Dataset

from model import GlossTranslationModel

HEADS = {
    "gloss": {"num_class": 2400, "loss_weight": 1.0},
    "hamnosys_handshape": {"num_class": 60, "loss_weight": 0.5},
    "hamnosys_location": {"num_class": 40, "loss_weight": 0.5},
}


class RandomSignDataset(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, index):
        x = torch.randn(150)
        targets = [torch.randint(0, head["num_class"], ()) for head in HEADS.values()]
        return x, targets


if __name__ == "__main__":
    model = GlossTranslationModel(HEADS)
    loader = DataLoader(RandomSignDataset(), batch_size=32, shuffle=True, num_workers=2)
    trainer = pl.Trainer(max_epochs=2, accelerator="auto")
    trainer.fit(model, loader)
    torch.save(model.state_dict(), "gloss_model.pt")
