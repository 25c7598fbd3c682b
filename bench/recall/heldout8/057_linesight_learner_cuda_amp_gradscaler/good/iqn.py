import torch


class Trainer:
    def __init__(self, online_network, target_network, optimizer, scaler, batch_size):
        self.online_network = online_network
        self.target_network = target_network
        self.optimizer = optimizer
        self.scaler = scaler
        self.batch_size = batch_size

    def train_on_batch(self, buffer, do_learn: bool):
        self.optimizer.zero_grad(set_to_none=True)
        state, action, target = buffer.sample(self.batch_size)
        with torch.amp.autocast(device_type="cuda", dtype=torch.float16):
            q = self.online_network(state).gather(1, action)
            loss = torch.nn.functional.smooth_l1_loss(q, target)
        if do_learn:
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            grad_norm = torch.nn.utils.clip_grad_norm_(self.online_network.parameters(), 30.0).item()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            grad_norm = 0.0
        return loss.detach().cpu().item(), grad_norm
