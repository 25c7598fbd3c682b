"""Classifier for texts longer than 512 tokens: chunks are scored separately and pooled."""
from typing import Optional

import torch
from torch import Tensor

from belt_nlp.bert import BertBase
from belt_nlp.splitting import transform_list_of_texts


class BertClassifierWithPooling(BertBase):
    def __init__(self, batch_size: int, learning_rate: float, epochs: int, chunk_size: int = 510,
                 stride: int = 510, minimal_chunk_length: int = 510, pooling_strategy: str = "mean",
                 maximal_text_length: Optional[int] = None, **kwargs):
        super().__init__(num_labels=kwargs.pop("num_labels", 2), batch_size=batch_size,
                         learning_rate=learning_rate, epochs=epochs, **kwargs)
        self.chunk_size = chunk_size
        self.stride = stride
        self.minimal_chunk_length = minimal_chunk_length
        self.pooling_strategy = pooling_strategy
        self.maximal_text_length = maximal_text_length
        self._params.update({"chunk_size": chunk_size, "stride": stride,
                             "minimal_chunk_length": minimal_chunk_length,
                             "pooling_strategy": pooling_strategy, "maximal_text_length": maximal_text_length})
        self.collate_fn = lambda data: [list(x) for x in zip(*data)]

    def _tokenize(self, texts: list[str]):
        return transform_list_of_texts(texts, self.tokenizer, self.chunk_size, self.stride,
                                       self.minimal_chunk_length, self.maximal_text_length)

    def _evaluate_single_batch(self, batch: tuple[Tensor]) -> Tensor:
        input_ids, attention_mask = batch[0], batch[1]
        lengths = [len(x) for x in input_ids]
        logits = self.neural_network(torch.cat(input_ids).to(self.device), torch.cat(attention_mask).to(self.device))
        pooled = [chunk.mean(dim=0) if self.pooling_strategy == "mean" else chunk.max(dim=0).values
                  for chunk in logits.split(lengths)]
        return torch.stack(pooled)
