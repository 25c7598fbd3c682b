import torch
from torch import nn

from parser.evalb import EvalbBracketingScorer


class SpanConstituencyParser(nn.Module):
    def __init__(self, vocab_size, num_labels, hidden=256, evalb_directory_path=None):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.encoder = nn.LSTM(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.span_scorer = nn.Linear(2 * hidden, num_labels)
        self.loss = nn.CrossEntropyLoss(ignore_index=-1)
        self._evalb_score = EvalbBracketingScorer(evalb_directory_path) if evalb_directory_path else None

    def forward(self, tokens, span_starts, span_ends, span_labels=None, gold_trees=None, decode_trees=None):
        encoded, _ = self.encoder(self.embed(tokens))
        batch = torch.arange(tokens.size(0)).unsqueeze(1)
        span_repr = torch.cat([encoded[batch, span_starts], encoded[batch, span_ends]], dim=-1)
        logits = self.span_scorer(span_repr)
        output = {"logits": logits}
        if span_labels is not None:
            output["loss"] = self.loss(logits.view(-1, logits.size(-1)), span_labels.view(-1))
        if not self.training and self._evalb_score is not None and gold_trees is not None:
            self._evalb_score(decode_trees(logits.argmax(-1)), gold_trees)
        return output

    def get_metrics(self, reset=False):
        return self._evalb_score.get_metric(reset) if self._evalb_score is not None else {}
