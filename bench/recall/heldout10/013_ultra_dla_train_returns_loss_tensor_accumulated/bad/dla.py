import torch
import torch.nn as nn
import torch.nn.functional as F


class DLA:
    """Dual learning algorithm: a ranker and a propensity (examination) model trained together."""

    def __init__(self, feature_size, max_candidate_num, lr=0.05, ranker_loss_weight=1.0):
        self.ranker = nn.Sequential(nn.Linear(feature_size, 64), nn.ELU(), nn.Linear(64, 1))
        self.propensity_model = nn.Linear(max_candidate_num, max_candidate_num)
        self.max_candidate_num = max_candidate_num
        self.ranker_loss_weight = ranker_loss_weight
        self.opt_ranker = torch.optim.Adagrad(self.ranker.parameters(), lr=lr)
        self.opt_denoise = torch.optim.Adagrad(self.propensity_model.parameters(), lr=lr)
        self.global_step = 0

    def softmax_loss(self, output, labels, weights):
        weighted = labels * weights
        return -(F.log_softmax(output, dim=-1) * weighted).sum(-1).mean()

    def separate_gradient_update(self):
        self.opt_denoise.zero_grad()
        self.opt_ranker.zero_grad()
        self.loss.backward()
        nn.utils.clip_grad_norm_(self.ranker.parameters(), 5.0)
        self.opt_denoise.step()
        self.opt_ranker.step()

    def train(self, input_feed):
        features, labels = input_feed["features"], input_feed["labels"]
        train_output = self.ranker(features).squeeze(-1)
        propensity = self.propensity_model(torch.ones(1, self.max_candidate_num))
        with torch.no_grad():
            propensity_weights = F.softmax(propensity, dim=-1)[:, :1] / F.softmax(propensity, dim=-1)
            relevance_weights = F.softmax(train_output, dim=-1) / F.softmax(train_output, dim=-1)[:, :1]
        rank_loss = self.softmax_loss(train_output, labels, propensity_weights)
        exam_loss = self.softmax_loss(propensity.expand_as(train_output), labels, relevance_weights)

        self.loss = exam_loss + self.ranker_loss_weight * rank_loss
        self.separate_gradient_update()

        self.global_step += 1
        return self.loss, None, {"global_step": float(self.global_step)}
