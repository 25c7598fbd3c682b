import torch
import torch.nn as nn

from grad_clip_hooks import GradClipHook


class SelfSupervisionTask:
    def __init__(self, model, optimizer, hooks, amp=True, device="cuda"):
        self.model = model
        self.optimizer = optimizer
        self.hooks = hooks
        self.device = device
        self.amp = amp and device == "cuda"
        self.amp_grad_scaler = torch.amp.GradScaler("cuda", enabled=self.amp)
        self.loss = nn.CrossEntropyLoss()
        self.last_batch = None

    def run_hooks(self, hook_function_name):
        for hook in self.hooks:
            getattr(hook, hook_function_name)(self)


def standard_train_step(task, batch):
    images, targets = (t.to(task.device, non_blocking=True) for t in batch)
    with torch.autocast("cuda", dtype=torch.float16, enabled=task.amp):
        output = task.model(images)
        task.run_hooks("on_forward")
        local_loss = task.loss(output, targets)
    task.run_hooks("on_loss_and_meter")

    task.optimizer.zero_grad()
    task.amp_grad_scaler.scale(local_loss).backward()
    task.run_hooks("on_backward")

    task.amp_grad_scaler.step(task.optimizer)
    task.amp_grad_scaler.update()
    task.run_hooks("on_update")
    return local_loss.detach()


def main(iterations=100, device="cuda" if torch.cuda.is_available() else "cpu"):
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 512), nn.GELU(), nn.Linear(512, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    task = SelfSupervisionTask(model, optimizer, hooks=[GradClipHook(norm_type=2, max_norm=1.0)], device=device)
    for it in range(iterations):
        batch = (torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,)))
        loss = standard_train_step(task, batch)
        if it % 10 == 0:
            print(it, loss.item())


if __name__ == "__main__":
    main()
