import torch
from transformers import AutoModelForTokenClassification, AutoTokenizer


class TransformerDetector:
    def __init__(self, model_path, max_length=4096, device=None):
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.model = AutoModelForTokenClassification.from_pretrained(model_path)
        self.max_length = max_length
        self.device = device or torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device)
        self.model.eval()

    def _predict(self, context, answer):
        encoding = self.tokenizer(context, answer, truncation=True, max_length=self.max_length, return_tensors="pt")
        labels = torch.full_like(encoding["input_ids"][0], -100)
        answer_start = int((encoding["token_type_ids"][0] == 1).nonzero()[0])
        labels[answer_start:] = 0
        labels = torch.tensor(labels, device=self.device)  # expect: TCK704
        input_ids = encoding["input_ids"].to(self.device)
        attention_mask = encoding["attention_mask"].to(self.device)
        with torch.no_grad():
            logits = self.model(input_ids=input_ids, attention_mask=attention_mask).logits
        probs = torch.softmax(logits, dim=-1)[0, :, 1]
        return [p.item() for p, lab in zip(probs, labels) if lab != -100]
