import torch
from torch import optim
from torch.nn import CrossEntropyLoss

from .modules import MemNN


class MemnnAgent(object):
    """Ranks label candidates by the dot product with the memory network's output."""

    def __init__(self, opt, dict_size):
        self.opt = opt
        self.model = MemNN(opt, dict_size)
        if opt.get('cuda'):
            self.model.cuda()
        self.loss_fn = CrossEntropyLoss()
        self.optimizer = optim.SGD(self.model.parameters(), lr=opt['learning_rate'])

    def score(self, cands, cand_lengths, output_embeddings):
        scores = []
        for i in range(len(cands)):
            cand_emb = self.model.answer_embedder(cand_lengths[i], cands[i])
            scores.append(self.model.score.one_to_many(output_embeddings[i].unsqueeze(0), cand_emb.squeeze(0)))
        return torch.cat(scores, dim=0)

    def train_step(self, memories, queries, memory_lengths, query_lengths, cands, cand_lengths, label_inds):
        self.model.train()
        self.optimizer.zero_grad()
        output_embeddings = self.model(memories, queries, memory_lengths, query_lengths)
        scores = self.score(cands, cand_lengths, output_embeddings)
        loss = self.loss_fn(scores, label_inds)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def predict(self, memories, queries, memory_lengths, query_lengths, cands, cand_lengths):
        self.model.eval()
        with torch.no_grad():
            output_embeddings = self.model(memories, queries, memory_lengths, query_lengths)
            scores = self.score(cands, cand_lengths, output_embeddings)
        return scores.argsort(dim=1, descending=True)
