import warnings
from contextlib import nullcontext
from typing import Any, Dict, List

import torch

IGNORE_INDEX = -100
PAD_TOKEN_ID = 0


def get_llm_kwargs(required_memory: int, dtype=torch.bfloat16) -> Dict[str, Any]:
    gpu_memory: List[int] = []
    for i in range(torch.cuda.device_count()):
        gpu_memory.append(torch.cuda.mem_get_info(i)[0] // 1024**3)
        if sum(gpu_memory) >= required_memory:
            break
    if sum(gpu_memory) < required_memory:
        gpu_memory = []
    kwargs = dict(revision="main")
    if len(gpu_memory) > 0:
        kwargs["max_memory"] = {i: f"{memory}GiB" for i, memory in enumerate(gpu_memory)}
        kwargs["device_map"] = "auto"
        kwargs["torch_dtype"] = dtype
    return kwargs


class LLM(torch.nn.Module):
    """Wraps a HuggingFace causal LM so graph models can feed it embeddings."""

    def __init__(self, model_name: str, num_params: int, dtype=torch.bfloat16) -> None:
        super().__init__()
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs = get_llm_kwargs(85 * num_params / 7, dtype)
        self.tokenizer = AutoTokenizer.from_pretrained(model_name, use_fast=False)
        self.tokenizer.pad_token_id = PAD_TOKEN_ID
        self.llm = AutoModelForCausalLM.from_pretrained(model_name, **kwargs)
        self.word_embedding = self.llm.model.get_input_embeddings()

        if "max_memory" not in kwargs:
            warnings.warn("LLM is being used on CPU, which may be slow")
            self.device = torch.device("cpu")
            self.autocast_context = nullcontext()
        else:
            self.device = self.llm.device
            self.autocast_context = torch.cuda.amp.autocast(dtype=dtype)  # expect: TCK301

    def forward(self, question: List[str], answer: List[str]) -> torch.Tensor:
        batch = self.tokenizer([q + " " + a for q, a in zip(question, answer)], return_tensors="pt", padding=True)
        input_ids = batch.input_ids.to(self.device)
        attention_mask = batch.attention_mask.to(self.device)
        labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
        with self.autocast_context:
            outputs = self.llm(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        return outputs.loss

    @torch.no_grad()
    def inference(self, question: List[str], max_tokens: int = 32) -> List[str]:
        batch = self.tokenizer(question, return_tensors="pt", padding=True).to(self.device)
        with self.autocast_context:
            outputs = self.llm.generate(**batch, max_new_tokens=max_tokens, pad_token_id=PAD_TOKEN_ID)
        return self.tokenizer.batch_decode(outputs, skip_special_tokens=True)
