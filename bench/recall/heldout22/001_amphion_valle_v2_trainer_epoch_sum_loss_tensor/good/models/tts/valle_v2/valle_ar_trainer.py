import torch
from torch.utils.data import DataLoader

from .base_trainer import BaseTrainer
from .valle_ar import ValleAR


class ValleARTrainer(BaseTrainer):
    """First (autoregressive) stage: predicts the first codec layer from phones."""

    def __init__(self, args=None, cfg=None):
        super().__init__(args, cfg)
        from encodec import EncodecModel

        with self.accelerator.main_process_first():
            self.codec_encoder = EncodecModel.encodec_model_24khz()
            self.codec_encoder.set_target_bandwidth(6.0)
            self.codec_encoder.to(self.accelerator.device)

    def _build_model(self):
        return ValleAR(**self.cfg.model)

    def _build_dataloader(self):
        from .libritts_dataset import LibriTTSDataset, collate

        train_set = LibriTTSDataset(self.cfg.dataset, split="train")
        valid_set = LibriTTSDataset(self.cfg.dataset, split="dev")
        train_loader = DataLoader(train_set, batch_size=self.cfg.train.batch_size, shuffle=True,
                                  collate_fn=collate, num_workers=self.cfg.train.num_workers)
        valid_loader = DataLoader(valid_set, batch_size=self.cfg.train.batch_size, collate_fn=collate)
        return train_loader, valid_loader

    def _encode_speech(self, speech):
        with torch.no_grad():
            frames = self.codec_encoder.encode(speech.unsqueeze(1))
            codes = torch.cat([frame[0] for frame in frames], dim=-1).transpose(0, 1)
        return codes[0]

    def _train_step(self, batch):
        device = self.accelerator.device
        batch = {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}
        target_ids = self._encode_speech(batch["speech"])
        out = self.model(
            phone_ids=batch["phone_ids"],
            phone_mask=batch["phone_mask"],
            target_ids=target_ids,
            target_mask=batch["speech_mask"],
        )
        return out.loss

    def _valid_step(self, batch):
        return self._train_step(batch)
