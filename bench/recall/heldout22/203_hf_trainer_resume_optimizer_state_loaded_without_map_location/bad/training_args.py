import dataclasses
from dataclasses import dataclass, field

import torch


@dataclass
class TrainingArguments:
    output_dir: str = field(metadata={"help": "Where checkpoints and predictions are written."})
    per_gpu_train_batch_size: int = 4
    gradient_accumulation_steps: int = 1
    learning_rate: float = 5e-5
    weight_decay: float = 0.0
    adam_epsilon: float = 1e-8
    max_grad_norm: float = 1.0
    num_train_epochs: float = 3.0
    warmup_steps: int = 0
    logging_steps: int = 500
    save_steps: int = 500
    seed: int = 42
    local_rank: int = -1
    no_cuda: bool = False

    @property
    def train_batch_size(self) -> int:
        return self.per_gpu_train_batch_size

    @property
    def device(self) -> torch.device:
        if self.no_cuda:
            return torch.device("cpu")
        if self.local_rank == -1:
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if not torch.distributed.is_initialized():
            torch.distributed.init_process_group(backend="nccl")
        return torch.device("cuda", self.local_rank)

    def to_json_string(self):
        import json

        return json.dumps(dataclasses.asdict(self), indent=2)
