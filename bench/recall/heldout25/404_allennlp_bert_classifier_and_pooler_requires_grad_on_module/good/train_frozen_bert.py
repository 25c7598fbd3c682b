"""Train only the classification layer on top of a frozen BERT."""
import torch

from allennlp.models import BertForClassification


class Vocab:
    def get_vocab_size(self, namespace="labels"):
        return 2


model = BertForClassification(Vocab(), "bert-base-uncased", num_labels=2, trainable=False)
trainable = [p for p in model.parameters() if p.requires_grad]
print("trainable parameters:", sum(p.numel() for p in trainable))
optimizer = torch.optim.Adam(trainable, lr=1e-3)

for step in range(10):
    ids = torch.randint(1, 30000, (8, 32))
    batch = {"bert": ids, "bert-type-ids": torch.zeros_like(ids)}
    out = model(batch, label=torch.randint(0, 2, (8,)))
    optimizer.zero_grad()
    out["loss"].backward()
    optimizer.step()
