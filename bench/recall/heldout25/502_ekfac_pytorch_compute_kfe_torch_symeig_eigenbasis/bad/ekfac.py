import torch
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


class EKFAC(Optimizer):
    """EKFAC preconditioner for Linear and Conv2d layers (other layers are skipped).

    Rewrites the gradients of the layers it hooks into the Kronecker-factored
    eigenbasis; a plain optimizer then applies the step.
    """

    def __init__(self, net, eps, ra=True, update_freq=1, alpha=0.75):
        self.eps = eps
        self.ra = ra
        self.update_freq = update_freq
        self.alpha = alpha
        self.params = []
        self._fwd_handles = []
        self._bwd_handles = []
        self._iteration_counter = 0
        for mod in net.modules():
            mod_class = mod.__class__.__name__
            if mod_class in ["Linear", "Conv2d"]:
                self._fwd_handles.append(mod.register_forward_pre_hook(self._save_input))
                self._bwd_handles.append(mod.register_full_backward_hook(self._save_grad_output))
                params = [mod.weight]
                if mod.bias is not None:
                    params.append(mod.bias)
                self.params.append({"params": params, "mod": mod, "layer_type": mod_class})
        super(EKFAC, self).__init__(self.params, {})

    def step(self, update_stats=True, update_params=True):
        for group in self.param_groups:
            if len(group["params"]) == 2:
                weight, bias = group["params"]
            else:
                weight, bias = group["params"][0], None
            state = self.state[weight]
            if self._iteration_counter % self.update_freq == 0:
                self._compute_kfe(group, state)
            self._precond_ra(weight, bias, group, state)
        self._iteration_counter += 1

    def _save_input(self, mod, i):
        self.state[mod]["x"] = i[0]

    def _save_grad_output(self, mod, grad_input, grad_output):
        self.state[mod]["gy"] = grad_output[0] * grad_output[0].size(0)

    def _precond_ra(self, weight, bias, group, state):
        kfe_x, kfe_gy, m2 = state["kfe_x"], state["kfe_gy"], state["m2"]
        g = weight.grad.data
        s = g.shape
        bs = self.state[group["mod"]]["x"].size(0)
        if group["layer_type"] == "Conv2d":
            g = g.contiguous().view(s[0], -1)
        if bias is not None:
            g = torch.cat([g, bias.grad.data.view(-1, 1)], dim=1)
        g_kfe = kfe_gy.t() @ g @ kfe_x
        m2.mul_(self.alpha).add_((1.0 - self.alpha) * bs * g_kfe ** 2)
        g_nat = kfe_gy @ (g_kfe / (m2 + self.eps)) @ kfe_x.t()
        if bias is not None:
            bias.grad.data = g_nat[:, -1].contiguous().view(*bias.shape)
            g_nat = g_nat[:, :-1]
        weight.grad.data = g_nat.contiguous().view(*s)

    def _compute_kfe(self, group, state):
        """Eigendecomposition of the two Kronecker factors of the layer."""
        mod = group["mod"]
        x = self.state[mod]["x"]
        gy = self.state[mod]["gy"]
        if group["layer_type"] == "Conv2d":
            x = F.unfold(x, mod.kernel_size, padding=mod.padding, stride=mod.stride)
            x = x.data.permute(1, 0, 2).reshape(x.shape[1], -1)
        else:
            x = x.data.t()
        if mod.bias is not None:
            x = torch.cat([x, torch.ones_like(x[:1])], dim=0)
        xxt = x @ x.t() / float(x.shape[1])
        Ex, state["kfe_x"] = torch.symeig(xxt, eigenvectors=True)  # expect: TCK901
        if group["layer_type"] == "Conv2d":
            gy = gy.data.permute(1, 0, 2, 3)
            state["num_locations"] = gy.shape[2] * gy.shape[3]
            gy = gy.reshape(gy.shape[0], -1)
        else:
            gy = gy.data.t()
            state["num_locations"] = 1
        ggt = gy @ gy.t() / float(gy.shape[1])
        Eg, state["kfe_gy"] = torch.symeig(ggt, eigenvectors=True)  # expect: TCK901
        state["m2"] = Eg.unsqueeze(1) * Ex.unsqueeze(0) * state["num_locations"]

    def __del__(self):
        for handle in self._fwd_handles + self._bwd_handles:
            handle.remove()
