import types
from collections import OrderedDict

import deepspeed
import torch
from torch.utils.tensorboard import SummaryWriter


class DeepSpeedAgent:
    def __init__(self, model, args):
        self.args = args
        self.model = model
        self.writer = SummaryWriter(args["log_path"])

        ds_params = args["deepspeed"]
        ds_params["scheduler"]["params"]["total_num_steps"] = args["total_steps"]
        self.ds_engine, self.optimizer, _, _ = deepspeed.initialize(
            model=self.model,
            model_parameters=self.model.parameters(),
            config_params=ds_params,
            dist_init_required=True,
            args=types.SimpleNamespace(**args),
        )

    def train_model(self, batch, current_step=0):
        self.ds_engine.module.train()
        loss, token_acc = self.ds_engine(batch)
        self.ds_engine.backward(loss)
        self.ds_engine.step()
        if self.args["local_rank"] == 0 and current_step % self.args["logging_step"] == 0:
            self.writer.add_scalar("train/loss", loss.item(), current_step)
        return token_acc

    def save_model(self, path, current_step):
        # keep only the trainable (LoRA / projection) parameters
        checkpoint = OrderedDict()
        for name, param in self.ds_engine.module.named_parameters():
            if param.requires_grad:
                checkpoint[name] = param.detach().cpu()
        if current_step <= 0:
            torch.save(checkpoint, f"{path}/pytorch_model.pt")  # expect: TCK208
        else:
            torch.save(checkpoint, f"{path}/pytorch_model_ep{current_step}.pt")  # expect: TCK208
        print(f"[!] save model into {path}")
