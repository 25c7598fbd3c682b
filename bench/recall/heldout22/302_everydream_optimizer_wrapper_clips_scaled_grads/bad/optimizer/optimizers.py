"""Holds the text-encoder and UNet optimizers, their schedulers and the AMP grad scaler."""
import logging
import os

import torch
from diffusers.optimization import get_scheduler

OPTIMIZER_TE_STATE_FILENAME = "optimizer_te.pt"
OPTIMIZER_UNET_STATE_FILENAME = "optimizer_unet.pt"


class EveryDreamOptimizer:
    def __init__(self, args, text_encoder, unet, epoch_len):
        self.epoch_len = epoch_len
        self.grad_accum = args.grad_accum
        self.clip_grad_norm = args.clip_grad_norm

        self.text_encoder_params = list(text_encoder.parameters())
        self.unet_params = list(unet.parameters())

        self.optimizers = []
        if not args.disable_textenc_training:
            self.optimizer_te = torch.optim.AdamW(self.text_encoder_params, lr=args.lr_te, weight_decay=0.01)
            self.optimizers.append(self.optimizer_te)
        else:
            self.optimizer_te = None
        if not args.disable_unet_training:
            self.optimizer_unet = torch.optim.AdamW(self.unet_params, lr=args.lr, weight_decay=0.01)
            self.optimizers.append(self.optimizer_unet)
        else:
            self.optimizer_unet = None

        self.lr_schedulers = [
            get_scheduler(args.lr_scheduler, optimizer=opt, num_warmup_steps=args.lr_warmup_steps,
                          num_training_steps=args.lr_decay_steps)
            for opt in self.optimizers
        ]
        self.load(args.resume_ckpt)

        self.scaler = torch.amp.GradScaler(
            "cuda",
            enabled=args.amp,
            init_scale=2**17.5,
            growth_factor=2,
            backoff_factor=1.0 / 2,
            growth_interval=25,
        )
        logging.info(f" Grad scaler enabled: {self.scaler.is_enabled()} (amp mode)")

    def step(self, loss, step, global_step):
        self.scaler.scale(loss).backward()

        if self.clip_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(parameters=self.unet_params, max_norm=self.clip_grad_norm)  # expect: TCK305
            torch.nn.utils.clip_grad_norm_(parameters=self.text_encoder_params, max_norm=self.clip_grad_norm)  # expect: TCK305
        if ((global_step + 1) % self.grad_accum == 0) or (step == self.epoch_len - 1):
            for optimizer in self.optimizers:
                self.scaler.step(optimizer)

            self.scaler.update()
            self._zero_grad(set_to_none=True)

        for scheduler in self.lr_schedulers:
            scheduler.step()

    def _zero_grad(self, set_to_none=False):
        for optimizer in self.optimizers:
            optimizer.zero_grad(set_to_none=set_to_none)

    def get_scale(self):
        return self.scaler.get_scale()

    def save(self, ckpt_path):
        if self.optimizer_te is not None:
            torch.save(self.optimizer_te.state_dict(), os.path.join(ckpt_path, OPTIMIZER_TE_STATE_FILENAME))
        if self.optimizer_unet is not None:
            torch.save(self.optimizer_unet.state_dict(), os.path.join(ckpt_path, OPTIMIZER_UNET_STATE_FILENAME))

    def load(self, ckpt_path):
        if not ckpt_path:
            return
        te_path = os.path.join(ckpt_path, OPTIMIZER_TE_STATE_FILENAME)
        unet_path = os.path.join(ckpt_path, OPTIMIZER_UNET_STATE_FILENAME)
        if os.path.exists(te_path) and self.optimizer_te is not None:
            self.optimizer_te.load_state_dict(torch.load(te_path, weights_only=True))
        if os.path.exists(unet_path) and self.optimizer_unet is not None:
            self.optimizer_unet.load_state_dict(torch.load(unet_path, weights_only=True))
