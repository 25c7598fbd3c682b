import argparse

import pytorch_lightning as pl
import torch
from torchvision.models import wide_resnet50_2


class STPM(pl.LightningModule):
    def __init__(self, hparams):
        super().__init__()
        self.save_hyperparameters(hparams)
        self.features = []

        def hook_t(module, inputs, output):
            self.features.append(output)

        self.backbone = wide_resnet50_2(weights="IMAGENET1K_V1")
        for param in self.backbone.parameters():
            param.requires_grad = False
        self.backbone.layer2[-1].register_forward_hook(hook_t)
        self.backbone.layer3[-1].register_forward_hook(hook_t)

    def forward(self, x):
        self.features.clear()
        self.backbone(x)
        return self.features

    def configure_optimizers(self):
        return None


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_path", default="./save_model_path.pt")
    args = parser.parse_args()
    model = STPM(hparams=args)
    trainer = pl.Trainer(max_epochs=1, accelerator="gpu", devices=1)
    trainer.fit(model)
    torch.save(model.state_dict(), args.save_path)
