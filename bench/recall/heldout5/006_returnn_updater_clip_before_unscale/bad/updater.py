import torch


class Updater:
    def __init__(self, network, config):
        self.network = network
        self.optimizer = torch.optim.AdamW(network.parameters(), lr=config["learning_rate"])
        self._grad_clip_global_norm = config.get("gradient_clip_global_norm", 0.0)

    def step(self, *, grad_scaler=None):
        if self._grad_clip_global_norm:
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), self._grad_clip_global_norm)  # expect: TCK305
        if grad_scaler is not None:
            grad_scaler.step(self.optimizer)
            grad_scaler.update()
        else:
            self.optimizer.step()
