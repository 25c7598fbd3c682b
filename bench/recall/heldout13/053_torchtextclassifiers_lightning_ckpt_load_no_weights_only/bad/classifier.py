import pytorch_lightning as pl
import torch

from lightning_module import TextClassificationModule


class TextClassifier:
    """User-facing wrapper: trains with Lightning, reloads from the best checkpoint."""

    def __init__(self, module=None, **hparams):
        self.module = module if module is not None else TextClassificationModule(**hparams)
        self.best_checkpoint = None

    def fit(self, train_loader, max_epochs=5):
        checkpoint = pl.callbacks.ModelCheckpoint(monitor="train_loss", save_top_k=1)
        trainer = pl.Trainer(max_epochs=max_epochs, callbacks=[checkpoint])
        trainer.fit(self.module, train_loader)
        self.best_checkpoint = checkpoint.best_model_path
        return self

    @classmethod
    def load_from_checkpoint(cls, path):
        checkpoint = torch.load(path, map_location="cpu")  # expect: TCK401
        module = TextClassificationModule(**checkpoint["hyper_parameters"])
        module.load_state_dict(checkpoint["state_dict"])
        module.eval()
        return cls(module=module)

    @torch.no_grad()
    def predict(self, token_ids, offsets):
        return self.module(token_ids, offsets).argmax(dim=-1)
