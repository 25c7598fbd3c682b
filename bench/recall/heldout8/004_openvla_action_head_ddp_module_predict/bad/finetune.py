import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class L1RegressionActionHead(nn.Module):
    def __init__(self, input_dim=4096, action_dim=7):
        super().__init__()
        self.model = nn.Sequential(nn.LayerNorm(input_dim), nn.Linear(input_dim, input_dim), nn.ReLU(), nn.Linear(input_dim, action_dim))

    def predict_action(self, actions_hidden_states):
        return self.model(actions_hidden_states)

    def forward(self, actions_hidden_states):
        return self.predict_action(actions_hidden_states)


def wrap_ddp(module, device_id, find_unused=False):
    return DDP(module, device_ids=[device_id], find_unused_parameters=find_unused, gradient_as_bucket_view=True)


def run_forward_pass(vla, action_head, batch, device_id, use_l1_regression, num_action_tokens=56):
    output = vla(
        input_ids=batch["input_ids"].to(device_id),
        attention_mask=batch["attention_mask"].to(device_id),
        pixel_values=batch["pixel_values"].to(device_id),
        output_hidden_states=True,
    )
    ground_truth_actions = batch["actions"].to(device_id)
    actions_hidden_states = output.hidden_states[-1][:, -num_action_tokens - 1:-1, :]
    if use_l1_regression:
        predicted_actions = action_head.module.predict_action(actions_hidden_states)  # expect: TCK210
        loss = torch.nn.L1Loss()(predicted_actions, ground_truth_actions)
    else:
        loss = output.loss
    return loss


def finetune(vla, dataloader, device_id, use_l1_regression=True, learning_rate=5e-4):
    dist.init_process_group(backend="nccl")
    vla = wrap_ddp(vla, device_id, find_unused=True)
    action_head = wrap_ddp(L1RegressionActionHead().to(device_id), device_id)
    trainable_params = [p for p in vla.parameters() if p.requires_grad]
    trainable_params += [p for p in action_head.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable_params, lr=learning_rate)
    vla.train()
    for batch in dataloader:
        loss = run_forward_pass(vla, action_head, batch, device_id, use_l1_regression)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
