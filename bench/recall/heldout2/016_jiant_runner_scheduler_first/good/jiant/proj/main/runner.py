import torch


class JiantRunner:
    def __init__(self, jiant_task_container, jiant_model, optimizer_scheduler, device, rparams):
        self.jiant_task_container = jiant_task_container
        self.jiant_model = jiant_model
        self.optimizer_scheduler = optimizer_scheduler
        self.device = device
        self.rparams = rparams

    def run_train_step(self, batch, task):
        self.jiant_model.train()
        model_output = self.jiant_model(batch=batch.to(self.device), task=task, compute_loss=True)
        loss = model_output.loss
        if self.rparams.gradient_accumulation_steps > 1:
            loss = loss / self.rparams.gradient_accumulation_steps
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.jiant_model.parameters(), self.rparams.max_grad_norm)
        self.optimizer_scheduler.optimizer.step()
        self.optimizer_scheduler.scheduler.step()
        self.jiant_model.zero_grad()
        return loss.item()
