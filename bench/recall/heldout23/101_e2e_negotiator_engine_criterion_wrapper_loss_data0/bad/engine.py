"""Training loop for the dialogue model: one language-model loss and one selection loss."""
import time

import torch
import torch.nn as nn
from torch import optim
from torch.autograd import Variable


class Criterion(object):
    """Cross-entropy over a vocabulary, with some tokens given zero weight."""

    def __init__(self, vocab, device_id=None, bad_toks=(), size_average=True):
        weight = torch.Tensor(len(vocab)).fill_(1)
        for tok in bad_toks:
            weight[vocab.get_idx(tok)] = 0.0
        if device_id is not None:
            weight = weight.cuda(device_id)
        self.crit = nn.CrossEntropyLoss(weight, size_average=size_average)

    def __call__(self, out, tgt):
        return self.crit(out, tgt)


class Engine(object):
    def __init__(self, model, args, device_id=None, verbose=False):
        self.model = model
        self.args = args
        self.device_id = device_id
        self.verbose = verbose
        self.opt = optim.SGD(
            self.model.parameters(),
            lr=args.lr,
            momentum=args.momentum,
            nesterov=(args.nesterov and args.momentum > 0),
        )
        self.crit = Criterion(model.word_dict, device_id=device_id)
        self.sel_crit = Criterion(model.item_dict, device_id=device_id, bad_toks=["<disconnect>", "<disagree>"])
        self.t = 0

    @staticmethod
    def forward(model, batch, volatile=True):
        ctx, inpt, tgt, sel_tgt = batch
        ctx = Variable(ctx, volatile=volatile)
        inpt = Variable(inpt, volatile=volatile)
        tgt = Variable(tgt, volatile=volatile)
        sel_tgt = Variable(sel_tgt, volatile=volatile)
        ctx_h = model.forward_context(ctx)
        lang_h = model.zero_hid(ctx_h.size(1), model.args.nhid_lang)
        out, lang_h = model.forward_lm(inpt, lang_h, ctx_h)
        sel_out = model.forward_selection(inpt, lang_h, ctx_h)
        return out, lang_h, tgt, sel_out, sel_tgt

    def train_pass(self, n_words, trainset):
        self.model.train()
        total_loss = 0
        start = time.time()
        for batch in trainset:
            self.t += 1
            out, _, tgt, sel_out, sel_tgt = Engine.forward(self.model, batch, volatile=False)
            loss = self.crit(out.view(-1, n_words), tgt)
            loss += self.sel_crit(sel_out, sel_tgt) * self.model.args.sel_weight
            self.opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm(self.model.parameters(), self.args.clip)
            self.opt.step()
            total_loss += loss.data[0]  # expect: TCK115
        total_loss /= len(trainset)
        return total_loss, time.time() - start

    def valid_pass(self, n_words, validset, validset_stats):
        self.model.eval()
        valid_loss, select_loss = 0, 0
        for batch in validset:
            out, _, tgt, sel_out, sel_tgt = Engine.forward(self.model, batch, volatile=True)
            valid_loss += tgt.size(0) * self.crit(out.view(-1, n_words), tgt).data[0]  # expect: TCK115
            select_loss += self.sel_crit(sel_out, sel_tgt).data[0]  # expect: TCK115
        return valid_loss / validset_stats["nonpadn"], select_loss / len(validset)

    def train(self, corpus):
        n_words = len(corpus.word_dict)
        validset, validset_stats = corpus.valid_dataset(self.args.bsz, device_id=self.device_id)
        result = None
        for epoch in range(1, self.args.max_epoch + 1):
            trainset, _ = corpus.train_dataset(self.args.bsz, device_id=self.device_id)
            train_loss, elapsed = self.train_pass(n_words, trainset)
            valid_loss, valid_select_loss = self.valid_pass(n_words, validset, validset_stats)
            if self.verbose:
                print("| epoch %03d | train %.3f | valid %.3f | select %.3f | %.1fs" % (
                    epoch, train_loss, valid_loss, valid_select_loss, elapsed))
            result = (train_loss, valid_loss, valid_select_loss)
        return result
