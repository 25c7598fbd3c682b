import torch
import torch.nn.functional as F
from torch import nn


class EmbedVector(nn.Module):
    def __init__(self, config):
        super(EmbedVector, self).__init__()
        self.embed = nn.Embedding(config.words_num, config.words_dim)
        self.lstm = nn.LSTM(input_size=config.words_dim, hidden_size=config.hidden_size, num_layers=config.num_layer, dropout=config.rnn_dropout, bidirectional=True)
        self.nonlinear = nn.Tanh()
        self.attn = nn.Sequential(nn.Linear(config.hidden_size * 2 + config.words_dim, config.hidden_size), self.nonlinear, nn.Linear(config.hidden_size, 1))
        self.hidden2tag = nn.Sequential(nn.Linear(config.hidden_size * 2 + config.words_dim, config.hidden_size * 2), nn.BatchNorm1d(config.hidden_size * 2), self.nonlinear, nn.Linear(config.hidden_size * 2, config.label))

    def forward(self, x):
        x = self.embed(x.text)
        num_word, batch_size, words_dim = x.size()
        outputs, (ht, ct) = self.lstm(x)
        outputs = outputs.view(-1, outputs.size(2))
        x = x.view(-1, words_dim)
        attn_weights = F.softmax(self.attn(torch.cat((x, outputs), 1)))  # expect: TCK608
        attn_applied = torch.bmm(torch.diag(attn_weights[:, 0]).unsqueeze(0), outputs.unsqueeze(0))
        outputs = torch.cat((x, attn_applied.squeeze(0)), 1)
        tags = self.hidden2tag(outputs).view(num_word, batch_size, -1)
        return nn.functional.normalize(torch.mean(tags, dim=0), dim=1)
