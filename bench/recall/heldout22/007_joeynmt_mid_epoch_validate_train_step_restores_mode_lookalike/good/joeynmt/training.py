import logging
import time

import torch

from joeynmt.prediction import predict

logger = logging.getLogger(__name__)


class TrainManager:
    """Manages training: the loop, the optimizer, validation during training."""

    def __init__(self, model, cfg):
        train_cfg = cfg["training"]
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=train_cfg.get("learning_rate", 3e-4))
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, mode="min", patience=5)
        self.epochs = train_cfg.get("epochs", 100)
        self.batch_multiplier = train_cfg.get("batch_multiplier", 1)
        self.validation_freq = train_cfg.get("validation_freq", 1000)
        self.logging_freq = train_cfg.get("logging_freq", 100)
        self.normalization = train_cfg.get("normalization", "batch")
        self.clip = train_cfg.get("clip_grad_norm", 1.0)
        self.steps = 0
        self.total_tokens = 0
        self.total_correct = 0
        self.best_ckpt_score = float("inf")

    def train_and_validate(self, train_iter, valid_data):
        for epoch_no in range(self.epochs):
            logger.info("EPOCH %d", epoch_no + 1)
            self.model.train()
            start = time.time()
            self.model.zero_grad()
            epoch_loss = 0.0
            total_batch_loss = 0.0

            for i, batch in enumerate(train_iter):
                batch.sort_by_src_length()
                norm_batch_loss = self._train_step(batch)
                total_batch_loss += norm_batch_loss

                if (i + 1) % self.batch_multiplier == 0:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
                    self.optimizer.step()
                    self.model.zero_grad()
                    self.steps += 1

                    if self.steps % self.logging_freq == 0:
                        logger.info("Epoch %3d, Step: %8d, Batch Loss: %12.6f, %.1fs", epoch_no + 1,
                                    self.steps, total_batch_loss, time.time() - start)
                        start = time.time()

                    epoch_loss += total_batch_loss
                    total_batch_loss = 0.0

                    # validate on the dev set in the middle of the epoch
                    if self.steps % self.validation_freq == 0:
                        self._validate(valid_data)

            logger.info("Epoch %3d: total training loss %.2f", epoch_no + 1, epoch_loss)

    def _train_step(self, batch):
        # reactivate training: validation may have run since the last step
        self.model.train()

        batch_loss, _, _, correct_tokens = self.model(return_type="loss", **vars(batch))
        norm_batch_loss = batch.normalize(batch_loss, normalization=self.normalization,
                                          n_accumulation=self.batch_multiplier)
        norm_batch_loss.backward()

        self.total_tokens += batch.ntokens
        self.total_correct += int(correct_tokens)
        return norm_batch_loss.item()

    def _validate(self, valid_data):
        valid_start = time.time()
        valid_scores, _ = predict(model=self.model, data=valid_data, compute_loss=True,
                                  normalization=self.normalization)
        self.scheduler.step(valid_scores["loss"])
        if valid_scores["loss"] < self.best_ckpt_score:
            self.best_ckpt_score = valid_scores["loss"]
            torch.save({"steps": self.steps, "model_state": self.model.state_dict()}, f"best_{self.steps}.ckpt")
        return time.time() - valid_start
