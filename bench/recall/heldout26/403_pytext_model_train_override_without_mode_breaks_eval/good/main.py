import torch

from pytext.models.doc_model import DocModel
from pytext.trainers.trainer import Trainer


def batches(n):
    for _ in range(n):
        yield torch.randint(0, 5000, (16, 40)), torch.randint(0, 4, (16,))


model = DocModel.from_config(vocab_size=5000, num_labels=4)
model, acc = Trainer(epochs=2).train(list(batches(20)), list(batches(5)), model)
print("eval accuracy", acc)
