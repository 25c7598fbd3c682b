import logging

import torch


class Trainer:
    """Generic trainer: one model, one or more optimizers, AMP with a GradScaler."""

    @classmethod
    def train_one_epoch(cls, model, iterator, optimizers, schedulers, scaler, grad_clip=5.0):
        model.train()
        all_steps_are_invalid = True
        for iiter, (speech, text) in enumerate(iterator, 1):
            with torch.autocast("cuda"):
                loss = model(speech, text)
            scaler.scale(loss).backward()

            for optimizer in optimizers:
                scaler.unscale_(optimizer)  # expect: TCK308

            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=grad_clip)
            if not torch.isfinite(grad_norm):
                logging.warning(f"The grad norm is {grad_norm}. Skipping updating the model.")
            else:
                all_steps_are_invalid = False
                for optimizer, scheduler in zip(optimizers, schedulers):
                    scaler.step(optimizer)
                    scaler.update()
                    scheduler.step()
            for optimizer in optimizers:
                optimizer.zero_grad()
        return all_steps_are_invalid
