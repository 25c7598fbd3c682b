import torch
import torch.nn as nn
import torch.nn.functional as F


class BilinearSpanScorer(nn.Module):
    def __init__(self, doc_size, question_size):
        super().__init__()
        self.linear = nn.Linear(question_size, doc_size)

    def forward(self, doc, question, doc_mask):
        scores = doc.bmm(self.linear(question).unsqueeze(2)).squeeze(2)
        scores = scores.masked_fill(doc_mask, -float("inf"))
        return F.log_softmax(scores, dim=-1) if self.training else F.softmax(scores, dim=-1)


class RnnDocReader(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.embedding = nn.Embedding(args.vocab_size, args.embedding_dim, padding_idx=0)
        self.doc_rnn = nn.LSTM(args.embedding_dim + args.num_features, args.hidden_size,
                               num_layers=args.doc_layers, batch_first=True, bidirectional=True)
        self.question_rnn = nn.LSTM(args.embedding_dim, args.hidden_size,
                                    num_layers=args.question_layers, batch_first=True, bidirectional=True)
        self.self_attn = nn.Linear(2 * args.hidden_size, 1)
        self.start_attn = BilinearSpanScorer(2 * args.hidden_size, 2 * args.hidden_size)
        self.end_attn = BilinearSpanScorer(2 * args.hidden_size, 2 * args.hidden_size)
        self.dropout = nn.Dropout(args.dropout_rnn)

    def forward(self, x1, x1_f, x1_mask, x2, x2_mask):
        doc_in = torch.cat([self.dropout(self.embedding(x1)), x1_f], dim=2)
        doc_hiddens, _ = self.doc_rnn(doc_in)
        question_hiddens, _ = self.question_rnn(self.dropout(self.embedding(x2)))
        weights = self.self_attn(question_hiddens).squeeze(2).masked_fill(x2_mask, -float("inf")).softmax(-1)
        question_hidden = weights.unsqueeze(1).bmm(question_hiddens).squeeze(1)
        return (self.start_attn(doc_hiddens, question_hidden, x1_mask),
                self.end_attn(doc_hiddens, question_hidden, x1_mask))
