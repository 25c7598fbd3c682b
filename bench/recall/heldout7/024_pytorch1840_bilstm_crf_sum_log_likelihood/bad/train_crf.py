import torch
import torch.nn as nn


class BiLSTMTagger(nn.Module):
    def __init__(self, vocab_size, n_tags, emb_dim=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden // 2, bidirectional=True)
        self.emit = nn.Linear(hidden, n_tags)
        self.transitions = nn.Parameter(torch.randn(n_tags, n_tags))

    def features(self, sentence):
        out, _ = self.lstm(self.embed(sentence).unsqueeze(1))
        return self.emit(out.squeeze(1))

    def neg_log_likelihood(self, sentence, tags):
        feats = self.features(sentence)
        alpha = feats[0]
        for feat in feats[1:]:
            alpha = torch.logsumexp(alpha.unsqueeze(1) + self.transitions, dim=0) + feat
        gold = feats[torch.arange(len(tags)), tags].sum() + self.transitions[tags[:-1], tags[1:]].sum()
        return torch.logsumexp(alpha, dim=0) - gold


def train(training_data, word_to_ix, tag_to_ix, epochs=300):
    model = BiLSTMTagger(len(word_to_ix), len(tag_to_ix)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=1e-4)
    for epoch in range(epochs):
        sum_log_likelihood = 0
        for sentence, tags in training_data:
            model.zero_grad()
            sentence_in = torch.tensor([word_to_ix[w] for w in sentence], dtype=torch.long).cuda()
            targets = torch.tensor([tag_to_ix[t] for t in tags], dtype=torch.long).cuda()
            neg_log_likelihood = model.neg_log_likelihood(sentence_in, targets)
            sum_log_likelihood += neg_log_likelihood  # expect: TCK101
            neg_log_likelihood.backward()
            optimizer.step()
        print(epoch, sum_log_likelihood / len(training_data))
    return model
