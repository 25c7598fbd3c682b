import torch
from torch import nn
from transformers import BertModel

from tools import load_schema

label2id, id2label, num_labels = load_schema()
num_label = num_labels + 1


class biaffine(nn.Module):
    def __init__(self, in_size, out_size, bias_x=True, bias_y=True):
        super().__init__()
        self.bias_x = bias_x
        self.bias_y = bias_y
        self.out_size = out_size
        self.U = torch.nn.Parameter(torch.randn(in_size + int(bias_x), out_size, in_size + int(bias_y)))

    def forward(self, x, y):
        if self.bias_x:
            x = torch.cat((x, torch.ones_like(x[..., :1])), dim=-1)
        if self.bias_y:
            y = torch.cat((y, torch.ones_like(y[..., :1])), dim=-1)
        return torch.einsum("bxi,ioj,byj->bxyo", x, self.U, y)


class myModel(nn.Module):
    def __init__(self, pre_train_dir: str, dropout_rate: float):
        super().__init__()
        self.roberta_encoder = BertModel.from_pretrained(pre_train_dir)
        self.start_layer = nn.Sequential(nn.Linear(in_features=2 * 768, out_features=128), nn.ReLU())
        self.end_layer = nn.Sequential(nn.Linear(in_features=2 * 768, out_features=128), nn.ReLU())
        self.biaffne_layer = biaffine(128, num_label)
        self.lstm = nn.LSTM(input_size=768, hidden_size=768, num_layers=1, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, input_ids, input_mask, input_seg, is_training=False):
        bert_output = self.roberta_encoder(input_ids=input_ids, attention_mask=input_mask, token_type_ids=input_seg)
        encoder_rep, _ = self.lstm(self.dropout(bert_output[0]))
        start_logits = self.start_layer(encoder_rep)
        end_logits = self.end_layer(encoder_rep)
        span_logits = self.biaffne_layer(start_logits, end_logits).contiguous()
        if is_training:
            return span_logits
        return torch.nn.functional.softmax(span_logits, dim=-1)
