import torch.nn as nn
from transformers import AutoModelForSeq2SeqLM


class KnowledgeGenerator(nn.Module):
    """Thin wrapper so `higher` can patch a seq2seq model that takes a feature dict."""

    def __init__(self, model_name_or_path):
        super().__init__()
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_name_or_path)

    def forward(self, features):
        out = self.model(
            input_ids=features["input_ids"],
            attention_mask=features["attention_mask"],
            labels=features["labels"],
        )
        preds = out.logits.argmax(-1)
        return {"loss": out.loss, "print_out": {"predictions": preds.tolist()}}
