import os

import torch


class Checkpoint:
    def __init__(self, trainer, save_dir="./save", model_name="vqa"):
        self.trainer = trainer
        self.ckpt_foldername = os.path.join(save_dir, model_name)
        os.makedirs(self.ckpt_foldername, exist_ok=True)
        self.pth_filepath = os.path.join(self.ckpt_foldername, model_name + "_final.pth")
        self.models_foldername = os.path.join(self.ckpt_foldername, "models")
        os.makedirs(self.models_foldername, exist_ok=True)

    def save(self, iteration, update_best=False):
        ckpt = {
            "model": self.trainer.model.state_dict(),
            "optimizer": self.trainer.optimizer.state_dict(),
            "current_iteration": iteration,
        }
        torch.save(ckpt, os.path.join(self.models_foldername, f"model_{iteration}.ckpt"))
        if update_best:
            torch.save(ckpt, os.path.join(self.ckpt_foldername, "best.ckpt"))

    def restore(self):
        best_path = os.path.join(self.ckpt_foldername, "best.ckpt")
        if os.path.exists(best_path):
            ckpt = torch.load(best_path, map_location="cpu", weights_only=True)
            self.trainer.model.load_state_dict(ckpt["model"])

    def finalize(self):
        torch.save(self.trainer.model.state_dict(), self.pth_filepath)
