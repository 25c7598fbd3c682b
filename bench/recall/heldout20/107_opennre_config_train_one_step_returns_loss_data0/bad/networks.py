import torch
import torch.nn as nn


class Embedding(nn.Module):
    def __init__(self, vocab_size=5000, word_dim=50, pos_num=100, pos_dim=5):
        super().__init__()
        self.word_embedding = nn.Embedding(vocab_size, word_dim)
        self.pos1_embedding = nn.Embedding(pos_num, pos_dim)
        self.pos2_embedding = nn.Embedding(pos_num, pos_dim)
        self.word = self.pos1 = self.pos2 = None

    def forward(self):
        return torch.cat([self.word_embedding(self.word), self.pos1_embedding(self.pos1),
                          self.pos2_embedding(self.pos2)], dim=2)


class CNNEncoder(nn.Module):
    def __init__(self, in_dim=60, hidden=230):
        super().__init__()
        self.conv = nn.Conv1d(in_dim, hidden, 3, padding=1)
        self.mask = None

    def forward(self, embedding):
        return torch.relu(self.conv(embedding.transpose(1, 2))).max(dim=2).values


class AverageSelector(nn.Module):
    """Bag-level selector: averages the sentence vectors of each entity-pair bag."""

    def __init__(self, hidden=230, num_classes=53):
        super().__init__()
        self.relation = nn.Linear(hidden, num_classes)
        self.scope = None
        self.attention_query = None
        self.label = None

    def forward(self, sen_embedding):
        bags = [sen_embedding[self.scope[i]:self.scope[i + 1]].mean(0) for i in range(len(self.scope) - 1)]
        return self.relation(torch.stack(bags))

    def test(self, sen_embedding):
        return torch.softmax(self.forward(sen_embedding), dim=1)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.label = None
        self.loss = nn.CrossEntropyLoss()

    def forward(self, logits):
        loss = self.loss(logits, self.label)
        _, output = torch.max(logits, dim=1)
        return loss, output.data


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = Embedding()
        self.encoder = CNNEncoder()
        self.selector = AverageSelector()
        self.classifier = Classifier()

    def forward(self):
        logits = self.selector(self.encoder(self.embedding()))
        return self.classifier(logits)

    def test(self):
        return self.selector.test(self.encoder(self.embedding()))
