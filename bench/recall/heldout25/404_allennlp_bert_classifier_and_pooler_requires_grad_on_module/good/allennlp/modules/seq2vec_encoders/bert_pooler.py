from typing import Union

import torch
from pytorch_pretrained_bert import BertModel

from allennlp.modules.seq2vec_encoders.seq2vec_encoder import Seq2VecEncoder
from allennlp.modules.token_embedders.bert_token_embedder import PretrainedBertModel


@Seq2VecEncoder.register("bert_pooler")
class BertPooler(Seq2VecEncoder):
    """BERT's own pooling layer (dense + tanh on the [CLS] vector) as a seq2vec encoder.

    ``requires_grad=False`` is meant to keep the pretrained pooler weights fixed.
    """

    def __init__(self, pretrained_model: Union[str, BertModel], requires_grad: bool = True) -> None:
        super().__init__()
        if isinstance(pretrained_model, str):
            model = PretrainedBertModel.load(pretrained_model)
        else:
            model = pretrained_model

        self.pooler = model.pooler
        for param in self.pooler.parameters():
            param.requires_grad = requires_grad
        self._embedding_dim = model.config.hidden_size

    def get_input_dim(self) -> int:
        return self._embedding_dim

    def get_output_dim(self) -> int:
        return self._embedding_dim

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor = None):
        return self.pooler(tokens)
