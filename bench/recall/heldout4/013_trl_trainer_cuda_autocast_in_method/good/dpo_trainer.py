import contextlib

import torch


class DPOTrainer:
    def __init__(self, model, ref_model, is_peft_model, peft_has_been_casted_to_bf16):
        self.model = model
        self.ref_model = ref_model
        self.is_peft_model = is_peft_model
        self._peft_has_been_casted_to_bf16 = peft_has_been_casted_to_bf16

    def compute_reference_log_probs(self, batch):
        with torch.no_grad():
            if self._peft_has_been_casted_to_bf16:
                with torch.amp.autocast("cuda"):
                    logits = self.ref_model(batch["input_ids"], attention_mask=batch["attention_mask"]).logits
            else:
                logits = self.ref_model(batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        return torch.log_softmax(logits, dim=-1)
