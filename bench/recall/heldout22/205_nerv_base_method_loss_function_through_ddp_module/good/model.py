import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseModel(nn.Module):
    """A model that knows how to compute its own losses."""

    def forward(self, data_dict):
        raise NotImplementedError

    def calc_train_loss(self, data_dict, out_dict):
        raise NotImplementedError

    @torch.no_grad()
    def calc_eval_loss(self, data_dict, out_dict):
        return self.calc_train_loss(data_dict, out_dict)

    def loss_function(self, data_dict):
        """Runs the forward pass, then the eval losses (training calls forward through the DDP wrapper)."""
        assert not self.training, "calc_train_loss() must be called outside the model so that DDP syncs gradients"
        out_dict = self.forward(data_dict)
        out_dict = self.calc_eval_loss(data_dict, out_dict)
        for v in data_dict.values():
            if isinstance(v, torch.Tensor):
                out_dict["batch_size"] = v.shape[0]
                break
        return out_dict

    def _training_epoch_start(self, method=None):
        pass


class SlotDynamics(BaseModel):
    """Predicts the next frame's slots from the history of slots."""

    def __init__(self, slot_size=128, history_len=6, num_layers=2):
        super().__init__()
        self.history_len = history_len
        layer = nn.TransformerEncoderLayer(slot_size, nhead=4, batch_first=True)
        self.transformer = nn.TransformerEncoder(layer, num_layers)
        self.out = nn.Linear(slot_size, slot_size)

    def forward(self, data_dict):
        slots = data_dict["slots"]  # B, T, N, C
        b, t, n, c = slots.shape
        history = slots[:, : self.history_len].flatten(1, 2)
        pred = self.out(self.transformer(history))[:, -n:]
        return {"pred_slots": pred.reshape(b, n, c)}

    def calc_train_loss(self, data_dict, out_dict):
        target = data_dict["slots"][:, self.history_len]
        return {"slot_recon_loss": F.mse_loss(out_dict["pred_slots"], target)}
