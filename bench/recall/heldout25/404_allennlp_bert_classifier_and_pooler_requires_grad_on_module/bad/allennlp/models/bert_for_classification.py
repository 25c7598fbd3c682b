from typing import Dict, Union

import torch
from pytorch_pretrained_bert.modeling import BertModel

from allennlp.models.model import Model
from allennlp.modules.token_embedders.bert_token_embedder import PretrainedBertModel


class CategoricalAccuracy:
    def __init__(self):
        self.correct = 0
        self.total = 0

    def __call__(self, logits, labels):
        self.correct += (logits.argmax(-1) == labels.view(-1)).sum().item()
        self.total += labels.numel()

    def get_metric(self, reset=False):
        value = self.correct / max(self.total, 1)
        if reset:
            self.correct = self.total = 0
        return value


@Model.register("bert_for_classification")
class BertForClassification(Model):
    """Pretrained BERT, its pooled output, and a linear layer on top.

    ``trainable=False`` is meant to freeze BERT and train only the final linear layer.
    """

    def __init__(self, vocab, bert_model: Union[str, BertModel], dropout: float = 0.0,
                 num_labels: int = None, index: str = "bert", label_namespace: str = "labels",
                 trainable: bool = True) -> None:
        super().__init__(vocab)
        if isinstance(bert_model, str):
            self.bert_model = PretrainedBertModel.load(bert_model)
        else:
            self.bert_model = bert_model

        self.bert_model.requires_grad = trainable  # expect: TCK611

        in_features = self.bert_model.config.hidden_size
        self._label_namespace = label_namespace
        out_features = num_labels or vocab.get_vocab_size(namespace=label_namespace)

        self._dropout = torch.nn.Dropout(p=dropout)
        self._classification_layer = torch.nn.Linear(in_features, out_features)
        self._accuracy = CategoricalAccuracy()
        self._loss = torch.nn.CrossEntropyLoss()
        self._index = index

    def forward(self, tokens: Dict[str, torch.LongTensor], label: torch.IntTensor = None):
        input_ids = tokens[self._index]
        token_type_ids = tokens[f"{self._index}-type-ids"]
        input_mask = (input_ids != 0).long()
        _, pooled = self.bert_model(input_ids=input_ids, token_type_ids=token_type_ids,
                                    attention_mask=input_mask)
        logits = self._classification_layer(self._dropout(pooled))
        output = {"logits": logits, "probs": torch.nn.functional.softmax(logits, dim=-1)}
        if label is not None:
            output["loss"] = self._loss(logits, label.long().view(-1))
            self._accuracy(logits, label)
        return output

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return {"accuracy": self._accuracy.get_metric(reset)}
