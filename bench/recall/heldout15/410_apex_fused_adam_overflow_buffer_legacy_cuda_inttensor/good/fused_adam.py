import torch

from multi_tensor_apply import multi_tensor_applier


class FusedAdam(torch.optim.Optimizer):
    """Adam/AdamW that updates all parameters of a dtype with one fused CUDA kernel launch."""

    def __init__(self, params, lr=1e-3, bias_correction=True, betas=(0.9, 0.999), eps=1e-8,
                 adam_w_mode=True, weight_decay=0.0, amsgrad=False, set_grad_none=True):
        if amsgrad:
            raise RuntimeError("FusedAdam does not support the AMSGrad variant.")
        defaults = dict(lr=lr, bias_correction=bias_correction, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)
        self.adam_w_mode = 1 if adam_w_mode else 0
        self.set_grad_none = set_grad_none
        if multi_tensor_applier.available:
            import amp_C
            self._dummy_overflow_buf = torch.tensor([0], dtype=torch.int, device="cuda")
            self.multi_tensor_adam = amp_C.multi_tensor_adam
        else:
            raise RuntimeError("apex.optimizers.FusedAdam requires cuda extensions")

    def zero_grad(self, set_to_none=None):
        if set_to_none is None:
            set_to_none = self.set_grad_none
        super().zero_grad(set_to_none=set_to_none)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            if not group["params"]:
                continue
            bias_correction = 1 if group["bias_correction"] else 0
            beta1, beta2 = group["betas"]
            group["step"] = group.get("step", 0) + 1
            buckets = {torch.float16: ([], [], [], []), torch.bfloat16: ([], [], [], []), torch.float32: ([], [], [], [])}
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError("FusedAdam does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p, dtype=torch.float32)
                    state["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float32)
                if p.dtype not in buckets:
                    raise RuntimeError("FusedAdam only supports fp16, bf16 and fp32")
                g, w, m, v = buckets[p.dtype]
                g.append(p.grad)
                w.append(p)
                m.append(state["exp_avg"])
                v.append(state["exp_avg_sq"])
            for g, w, m, v in buckets.values():
                if g:
                    multi_tensor_applier(self.multi_tensor_adam, self._dummy_overflow_buf, [g, w, m, v],
                                         group["lr"], beta1, beta2, group["eps"], group["step"],
                                         self.adam_w_mode, bias_correction, group["weight_decay"])
        return loss
