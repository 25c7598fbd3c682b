import torch

from dit import DiT


class FlowMatchingActionHead(torch.nn.Module):
    def __init__(self, action_dim=32, horizon=16, num_inference_steps=4):
        super().__init__()
        self.model = DiT(action_dim=action_dim)
        self.action_dim = action_dim
        self.horizon = horizon
        self.num_inference_steps = num_inference_steps

    @torch.inference_mode()
    def get_action(self, batch_size=1, device="cuda"):
        actions = torch.randn(batch_size, self.horizon, self.action_dim, device=device)
        dt = 1.0 / self.num_inference_steps
        for step in range(self.num_inference_steps):
            t = torch.full((batch_size,), step * dt, device=device)
            actions = actions + dt * self.model(actions, t)
        return actions


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    head = FlowMatchingActionHead().to(device).eval()
    print(head.get_action(device=device).shape)
