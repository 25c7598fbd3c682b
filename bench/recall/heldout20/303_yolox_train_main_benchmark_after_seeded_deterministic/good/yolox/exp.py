import torch


class Exp:
    def __init__(self):
        self.seed = None
        self.max_epoch = 300
        self.basic_lr_per_img = 0.01 / 64.0
        self.exp_name = "yolox_s"

    def merge(self, opts):
        for key, value in zip(opts[0::2], opts[1::2]):
            setattr(self, key, type(getattr(self, key))(value) if getattr(self, key) is not None else int(value))

    def get_model(self):
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3, 2, 1), torch.nn.SiLU(),
            torch.nn.Conv2d(32, 64, 3, 2, 1), torch.nn.SiLU(),
            torch.nn.Conv2d(64, 85, 1),
        )

    def get_trainer(self, args):
        from yolox.trainer import Trainer

        return Trainer(self, args)
