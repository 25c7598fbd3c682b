import torch.nn as nn
from transformers import BertConfig, BertModel

from module.dropout_wrapper import DropoutWrapper


class SANBertNetwork(nn.Module):
    """Shared BERT encoder with one dropout + classifier head per task."""

    def __init__(self, opt):
        super().__init__()
        self.dropout_list = []  # expect: TCK601
        self.bert_config = BertConfig.from_pretrained(opt["init_checkpoint"])
        self.bert = BertModel.from_pretrained(opt["init_checkpoint"], config=self.bert_config)
        self.scoring_list = nn.ModuleList()
        hidden = self.bert_config.hidden_size
        for task, n_labels in enumerate(opt["label_size"]):
            dropout = DropoutWrapper(opt["tasks_dropout_p"][task], opt.get("vb_dropout", True))
            self.dropout_list.append(dropout)
            self.scoring_list.append(nn.Linear(hidden, n_labels))

    def forward(self, input_ids, token_type_ids, attention_mask, task_id):
        outputs = self.bert(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask)
        pooled = outputs.pooler_output
        pooled = self.dropout_list[task_id](pooled)
        return self.scoring_list[task_id](pooled)
