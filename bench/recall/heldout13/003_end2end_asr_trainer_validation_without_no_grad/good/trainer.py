import logging

import torch
import torch.nn.functional as F
from tqdm import tqdm


def calculate_loss(pred, gold, pad_id, smoothing=0.1):
    return F.cross_entropy(pred.reshape(-1, pred.size(-1)), gold.reshape(-1),
                           ignore_index=pad_id, label_smoothing=smoothing)


def char_errors(hyp_seq, gold_seq, pad_id):
    mask = gold_seq.ne(pad_id)
    return (hyp_seq.ne(gold_seq) & mask).sum().item(), mask.sum().item()


class Trainer:
    def __init__(self, use_cuda=True, pad_id=0, clip=5.0):
        self.use_cuda = use_cuda and torch.cuda.is_available()
        self.pad_id = pad_id
        self.clip = clip

    def train(self, model, train_loader, valid_loader_list, opt, start_epoch, num_epochs):
        best_valid_loss = float("inf")
        for epoch in range(start_epoch, num_epochs):
            total_loss = 0.0
            model.train()
            pbar = tqdm(train_loader, leave=True, total=len(train_loader))
            for i, (src, tgt, src_lengths) in enumerate(pbar):
                if self.use_cuda:
                    src, tgt, src_lengths = src.cuda(), tgt.cuda(), src_lengths.cuda()
                opt.zero_grad()
                pred, gold, hyp_seq, gold_seq = model(src, src_lengths, tgt)
                loss = calculate_loss(pred, gold, self.pad_id)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), self.clip)
                opt.step()
                total_loss += loss.item()
                pbar.set_description(f"(Epoch {epoch + 1}) TRAIN LOSS:{total_loss / (i + 1):.4f}")

            logging.info("VALID")
            model.eval()
            with torch.no_grad():
                for ind, valid_loader in enumerate(valid_loader_list):
                    total_valid_loss, total_err, total_char = 0.0, 0, 0
                    for src, tgt, src_lengths in tqdm(valid_loader, leave=True):
                        if self.use_cuda:
                            src, tgt, src_lengths = src.cuda(), tgt.cuda(), src_lengths.cuda()
                        pred, gold, hyp_seq, gold_seq = model(src, src_lengths, tgt)
                        loss = calculate_loss(pred, gold, self.pad_id)
                        errors, chars = char_errors(hyp_seq, gold_seq, self.pad_id)
                        total_err += errors
                        total_char += chars
                        total_valid_loss += loss.item()
                    logging.info("VALID SET %d LOSS:%.4f CER:%.2f%%", ind,
                                 total_valid_loss / len(valid_loader), 100.0 * total_err / max(total_char, 1))

            if total_valid_loss / len(valid_loader) < best_valid_loss:
                best_valid_loss = total_valid_loss / len(valid_loader)
                torch.save({"epoch": epoch + 1, "model": model.state_dict(), "optimizer": opt.state_dict()},
                           "best_model.pth")
