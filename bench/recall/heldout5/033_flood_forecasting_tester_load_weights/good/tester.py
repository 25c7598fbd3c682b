import logging
from pathlib import Path

import torch

LOGGER = logging.getLogger(__name__)


class BaseTester:
    def __init__(self, run_dir: Path, model: torch.nn.Module, device: str = "cuda:0"):
        self.run_dir = run_dir
        self.model = model
        self.device = torch.device(device)

    def _get_weight_file(self, epoch=None) -> Path:
        if epoch is None:
            return sorted(self.run_dir.glob("model_epoch*.pt"))[-1]
        return self.run_dir / f"model_epoch{str(epoch).zfill(3)}.pt"

    def _load_weights(self, epoch=None):
        weight_file = self._get_weight_file(epoch)
        LOGGER.info(f"Using the model weights from {weight_file}")
        self.model.load_state_dict(torch.load(weight_file, map_location=self.device, weights_only=True))
