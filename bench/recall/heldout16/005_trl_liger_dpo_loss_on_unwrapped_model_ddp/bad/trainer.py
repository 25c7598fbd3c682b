import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType
from transformers import AutoModelForCausalLM

from losses import fused_linear_dpo_loss


class PreferenceTrainer:
    def __init__(self, model_name, loader, lr=5e-7, beta=0.1, use_liger_kernel=True):
        self.accelerator = Accelerator()
        model = AutoModelForCausalLM.from_pretrained(model_name)
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.model, self.optimizer, self.loader = self.accelerator.prepare(model, optimizer, loader)
        self.beta = beta
        self.use_liger_kernel = use_liger_kernel
        self.is_fsdp = self.accelerator.distributed_type == DistributedType.FSDP

    def compute_loss(self, batch):
        unwrapped_model = self.accelerator.unwrap_model(self.model)
        input_ids = torch.cat([batch["chosen_input_ids"], batch["rejected_input_ids"]])
        attention_mask = torch.cat([batch["chosen_attention_mask"], batch["rejected_attention_mask"]])
        labels = torch.cat([batch["chosen_labels"], batch["rejected_labels"]])
        if self.use_liger_kernel:
            if self.is_fsdp:
                # sharded parameters must be gathered by the wrapper's own forward
                outputs = self.model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
                hidden = outputs.hidden_states[-1]
            else:
                hidden = unwrapped_model.model(  # expect: TCK210
                    input_ids=input_ids, attention_mask=attention_mask
                ).last_hidden_state
            return fused_linear_dpo_loss(
                hidden[:, :-1],
                unwrapped_model.lm_head.weight,
                labels[:, 1:],
                batch["ref_chosen_logps"],
                batch["ref_rejected_logps"],
                beta=self.beta,
            )
        logits = self.model(input_ids=input_ids, attention_mask=attention_mask).logits
        logps = torch.gather(logits[:, :-1].log_softmax(-1), 2, labels[:, 1:].clamp(min=0).unsqueeze(-1))
        logps = (logps.squeeze(-1) * (labels[:, 1:] != -100)).sum(-1)
        chosen, rejected = logps.chunk(2)
        margin = self.beta * ((chosen - batch["ref_chosen_logps"]) - (rejected - batch["ref_rejected_logps"]))
        return -torch.nn.functional.logsigmoid(margin).mean()

    def train(self, epochs=1):
        self.model.train()
        for epoch in range(epochs):
            for step, batch in enumerate(self.loader):
                loss = self.compute_loss(batch)
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()
                if step % 10 == 0:
                    self.accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
