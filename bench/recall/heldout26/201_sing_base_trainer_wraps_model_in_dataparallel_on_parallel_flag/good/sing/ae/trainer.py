from ..fondation import trainer, utils


class AutoencoderTrainer(trainer.BaseTrainer):
    """Trains the convolutional autoencoder on raw waveforms."""

    def _train_batch(self, batch):
        rebuilt, target = self._get_rebuilt_target(batch)
        self.optimizer.zero_grad()
        loss = self.train_loss(rebuilt, target)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _get_rebuilt_target(self, batch):
        wav = batch["wav"]
        target = utils.unpad1d(wav, self.model.strip)
        rebuilt = self.parallel(wav)
        return rebuilt, target
