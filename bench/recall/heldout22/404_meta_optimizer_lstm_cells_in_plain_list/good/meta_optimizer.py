import torch
import torch.nn as nn
import torch.nn.functional as F

from layer_norm import LayerNorm1D
from layer_norm_lstm import LayerNormLSTMCell


def preprocess_gradients(x, p=10.0):
    eps = 1e-6
    indicator = (x.abs() > torch.exp(torch.tensor(-p))).float()
    x1 = (x.abs() + eps).log() / p * indicator - (1 - indicator)
    x2 = x.sign() * indicator + torch.exp(torch.tensor(p)) * x * (1 - indicator)
    return torch.cat((x1.unsqueeze(1), x2.unsqueeze(1)), 1)


class MetaModel:
    """Holds a functional copy of the learner whose weights the meta optimizer rewrites."""

    def __init__(self, model):
        self.model = model

    def reset(self):
        for module in self.model.children():
            module._parameters["weight"] = module._parameters["weight"].detach()
            module._parameters["bias"] = module._parameters["bias"].detach()

    def get_flat_params(self):
        return torch.cat([p.view(-1) for p in self.model.parameters()]).unsqueeze(1)

    def set_flat_params(self, flat_params):
        offset = 0
        for module in self.model.children():
            for name in ("weight", "bias"):
                shape = module._parameters[name].size()
                n = module._parameters[name].numel()
                module._parameters[name] = flat_params[offset:offset + n].view(*shape)
                offset += n

    def copy_params_from(self, model):
        for a, b in zip(self.model.parameters(), model.parameters()):
            a.data.copy_(b.data)

    def copy_params_to(self, model):
        for a, b in zip(self.model.parameters(), model.parameters()):
            b.data.copy_(a.data)


class MetaOptimizer(nn.Module):
    """LSTM optimizer (learning to learn by gradient descent by gradient descent)."""

    def __init__(self, model, num_layers, hidden_size):
        super(MetaOptimizer, self).__init__()
        self.meta_model = model
        self.hidden_size = hidden_size

        self.linear1 = nn.Linear(3, hidden_size)
        self.ln1 = LayerNorm1D(hidden_size)

        self.lstms = nn.ModuleList()
        for i in range(num_layers):
            self.lstms.append(LayerNormLSTMCell(hidden_size, hidden_size))

        self.linear2 = nn.Linear(hidden_size, 1)
        self.linear2.weight.data.mul_(0.1)
        self.linear2.bias.data.fill_(0.0)

    def reset_lstm(self, keep_states=False, model=None, use_cuda=False):
        self.meta_model.reset()
        self.meta_model.copy_params_from(model)
        if keep_states:
            self.hx = [h.detach() for h in self.hx]
            self.cx = [c.detach() for c in self.cx]
        else:
            device = "cuda" if use_cuda else "cpu"
            self.hx = [torch.zeros(1, self.hidden_size, device=device) for _ in self.lstms]
            self.cx = [torch.zeros(1, self.hidden_size, device=device) for _ in self.lstms]

    def forward(self, x):
        x = torch.tanh(self.ln1(self.linear1(x)))
        for i in range(len(self.lstms)):
            if x.size(0) != self.hx[i].size(0):
                self.hx[i] = self.hx[i].expand(x.size(0), self.hx[i].size(1))
                self.cx[i] = self.cx[i].expand(x.size(0), self.cx[i].size(1))
            self.hx[i], self.cx[i] = self.lstms[i](x, (self.hx[i], self.cx[i]))
            x = self.hx[i]
        return self.linear2(x).squeeze()

    def meta_update(self, model_with_grads):
        grads = []
        for module in model_with_grads.children():
            grads.append(module._parameters["weight"].grad.view(-1))
            grads.append(module._parameters["bias"].grad.view(-1))

        flat_params = self.meta_model.get_flat_params()
        flat_grads = preprocess_gradients(torch.cat(grads))
        inputs = torch.cat((flat_grads, flat_params.detach()), 1)

        flat_params = flat_params + self(inputs).unsqueeze(1)
        self.meta_model.set_flat_params(flat_params)
        self.meta_model.copy_params_to(model_with_grads)
        return self.meta_model.model
