import torch
import torch.nn as nn


class VSE:
    def __init__(self, opt):
        self.img_enc = nn.Sequential(nn.Linear(opt.img_dim, opt.embed_size), nn.Dropout(0.2))
        self.txt_enc = nn.Sequential(nn.Embedding(opt.vocab_size, opt.embed_size), nn.Dropout(0.2))
        params = list(self.img_enc.parameters()) + list(self.txt_enc.parameters())
        self.optimizer = torch.optim.Adam(params, lr=opt.learning_rate)
        self.Eiters = 0

    def train_start(self):
        self.img_enc.train()
        self.txt_enc.train()

    def val_start(self):
        self.img_enc.eval()
        self.txt_enc.eval()

    def forward_emb(self, images, captions):
        return self.img_enc(images), self.txt_enc(captions).mean(dim=1)

    def train_emb(self, images, captions):
        self.Eiters += 1
        img_emb, cap_emb = self.forward_emb(images, captions)
        scores = img_emb @ cap_emb.t()
        loss = (scores.diag().neg() + scores.logsumexp(dim=1)).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
