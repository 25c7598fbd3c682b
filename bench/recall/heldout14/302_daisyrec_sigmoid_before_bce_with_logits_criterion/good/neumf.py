import torch
import torch.nn as nn

from base import GeneralRecommender


class NeuMF(GeneralRecommender):
    def __init__(self, config):
        super().__init__(config)
        factors = config["factors"]
        self.reg = config["reg"]
        self.embed_user_gmf = nn.Embedding(config["user_num"], factors)
        self.embed_item_gmf = nn.Embedding(config["item_num"], factors)
        self.embed_user_mlp = nn.Embedding(config["user_num"], factors * 2)
        self.embed_item_mlp = nn.Embedding(config["item_num"], factors * 2)
        self.mlp = nn.Sequential(
            nn.Dropout(config["dropout"]),
            nn.Linear(factors * 4, factors * 2),
            nn.ReLU(),
            nn.Linear(factors * 2, factors),
            nn.ReLU(),
        )
        self.predict_layer = nn.Linear(factors * 2, 1)

    def forward(self, user, item):
        gmf = self.embed_user_gmf(user) * self.embed_item_gmf(item)
        mlp = self.mlp(torch.cat((self.embed_user_mlp(user), self.embed_item_mlp(item)), dim=-1))
        prediction = self.predict_layer(torch.cat((gmf, mlp), dim=-1))
        return prediction.view(-1)

    def calc_loss(self, batch):
        user = batch[0].to(self.device)
        item = batch[1].to(self.device)
        pred = self.forward(user, item)
        if self.loss_type.upper() in ("CL", "SL"):
            label = batch[2].to(self.device).float()
            loss = self.criterion(pred, label)
        else:
            neg_item = batch[2].to(self.device)
            loss = self.criterion(pred, self.forward(user, neg_item))
        loss = loss + self.reg * self.embed_user_gmf(user).norm()
        return loss

    @torch.no_grad()
    def predict(self, user, item):
        self.eval()
        return torch.sigmoid(self.forward(user.to(self.device), item.to(self.device))).cpu()
