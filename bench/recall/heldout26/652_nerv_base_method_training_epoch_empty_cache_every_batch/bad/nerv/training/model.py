import torch
import torch.nn as nn


class BaseModel(nn.Module):
    """Models trained by `BaseMethod` implement `forward` and the two loss hooks."""

    def forward(self, data_dict):
        raise NotImplementedError

    def calc_train_loss(self, data_dict, out_dict):
        raise NotImplementedError

    @torch.no_grad()
    def calc_eval_loss(self, data_dict, out_dict):
        return self.calc_train_loss(data_dict, out_dict)

    def loss_function(self, data_dict):
        out_dict = self.forward(data_dict)
        out_dict = self.calc_eval_loss(data_dict, out_dict)
        for v in data_dict.values():
            if isinstance(v, torch.Tensor):
                out_dict['batch_size'] = v.shape[0]
                break
        return out_dict
