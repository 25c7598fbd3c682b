import torch


class SAETrainer:
    def __init__(self, sae, activation_store, optimizer, device="cuda", autocast=True):
        self.sae = sae
        self.activation_store = activation_store
        self.optimizer = optimizer
        self.device = device
        self.autocast = autocast

    def _train_step(self, batch):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=self.autocast):
            output = self.sae.training_forward_pass(batch)
        output.loss.backward()
        torch.nn.utils.clip_grad_norm_(self.sae.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return output

    def fit(self, steps):
        for _ in range(steps):
            self._train_step(self.activation_store.next_batch().to(self.device))
