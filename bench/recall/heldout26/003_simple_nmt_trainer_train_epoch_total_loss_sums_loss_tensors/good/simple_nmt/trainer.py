from tqdm import tqdm

import torch
import torch.nn.utils as torch_utils
import torch.optim as optim

import utils

VERBOSE_SILENT = 0
VERBOSE_EPOCH_WISE = 1
VERBOSE_BATCH_WISE = 2


class Trainer():

    def __init__(self, model, crit, config, **kwargs):
        self.model = model
        self.crit = crit
        self.config = config
        self.n_epochs = config.n_epochs
        self.lower_is_better = True
        self.best = {"epoch": 0, "current_lr": config.lr, "config": config, **kwargs}

    def get_best_model(self):
        self.model.load_state_dict(self.best["model"])
        return self.model

    def save_training(self, fn):
        torch.save(self.best, fn)

    def _get_loss(self, y_hat, y, crit=None):
        # |y_hat| = (batch_size, length, output_size), |y| = (batch_size, length)
        crit = self.crit if crit is None else crit
        return crit(y_hat.contiguous().view(-1, y_hat.size(-1)), y.contiguous().view(-1))

    def train_epoch(self, train, optimizer, batch_size=32, verbose=VERBOSE_BATCH_WISE):
        """One pass over the training iterator with the given optimizer."""
        total_loss, total_word_count = 0, 0
        total_param_norm, total_grad_norm = 0, 0
        avg_loss, avg_param_norm, avg_grad_norm = 0, 0, 0
        sample_cnt = 0

        progress_bar = tqdm(train, desc="Training: ", unit="batch") if verbose is VERBOSE_BATCH_WISE else train
        for idx, mini_batch in enumerate(progress_bar):
            # the target keeps BOS and EOS; the decoder input drops EOS, the reference drops BOS
            x, y = mini_batch.src, mini_batch.tgt[0][:, 1:]
            optimizer.zero_grad()

            y_hat = self.model(x, mini_batch.tgt[0][:, :-1])
            loss = self._get_loss(y_hat, y)
            loss.div(y.size(0)).backward()

            # running statistics for the progress bar
            total_loss += loss.detach()
            total_word_count += int(mini_batch.tgt[1].sum())
            total_param_norm += utils.get_parameter_norm(self.model.parameters())
            total_grad_norm += utils.get_grad_norm(self.model.parameters())

            avg_loss = total_loss / total_word_count
            avg_param_norm = total_param_norm / (idx + 1)
            avg_grad_norm = total_grad_norm / (idx + 1)

            if verbose is VERBOSE_BATCH_WISE:
                progress_bar.set_postfix_str("|param|=%.2f |g_param|=%.2f loss=%.4e PPL=%.2f" % (
                    avg_param_norm, avg_grad_norm, avg_loss, avg_loss.exp()))

            torch_utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
            optimizer.step()

            sample_cnt += mini_batch.tgt[0].size(0)
            if sample_cnt >= len(train.dataset.examples):
                break

        if verbose is VERBOSE_BATCH_WISE:
            progress_bar.close()
        return avg_loss, avg_param_norm, avg_grad_norm

    def train(self, train, valid, verbose=VERBOSE_EPOCH_WISE):
        """Train until n_epochs, keeping the best model by validation loss; optional early stop."""
        current_lr = self.best["current_lr"]
        best_loss = float("Inf")
        lowest_after = 0

        for idx in range(self.best["epoch"], self.n_epochs):
            if self.config.adam:
                optimizer = optim.Adam(self.model.parameters(), lr=current_lr)
            else:
                optimizer = optim.SGD(self.model.parameters(), lr=current_lr)

            avg_train_loss, avg_param_norm, avg_grad_norm = self.train_epoch(
                train, optimizer, batch_size=self.config.batch_size, verbose=verbose)
            avg_valid_loss = self.validate(valid, verbose=verbose)

            if verbose is VERBOSE_EPOCH_WISE:
                print("epoch %d |param|=%.2f |g_param|=%.2f train_loss=%.4e valid_loss=%.4e min_valid_loss=%.4e" % (
                    idx + 1, avg_param_norm, avg_grad_norm, avg_train_loss, avg_valid_loss, best_loss))

            if avg_valid_loss < best_loss:
                best_loss = avg_valid_loss
                lowest_after = 0
                self.best["model"] = self.model.state_dict()
                self.best["optim"] = optimizer
                self.best["epoch"] = idx + 1
                self.best["current_lr"] = current_lr
                stem = self.config.model.split(".")
                name = stem[:-1] + ["%02d" % (idx + 1),
                                    "%.2f-%.2f" % (avg_train_loss, avg_train_loss.exp()),
                                    "%.2f-%.2f" % (avg_valid_loss, avg_valid_loss.exp())] + [stem[-1]]
                self.save_training(".".join(name))
            else:
                lowest_after += 1
                if self.config.early_stop > 0 and lowest_after >= self.config.early_stop:
                    break

    def validate(self, valid, crit=None, batch_size=256, verbose=VERBOSE_BATCH_WISE):
        """Average per-word loss over the validation iterator."""
        with torch.no_grad():
            sample_cnt = 0
            total_loss, total_word_count = 0, 0
            progress_bar = tqdm(valid, desc="Validation: ", unit="batch") if verbose is VERBOSE_BATCH_WISE else valid

            self.model.eval()
            for idx, mini_batch in enumerate(progress_bar):
                x, y = mini_batch.src, mini_batch.tgt[0][:, 1:]
                y_hat = self.model(x, mini_batch.tgt[0][:, :-1])
                loss = self._get_loss(y_hat, y, crit)

                total_loss += loss
                total_word_count += int(mini_batch.tgt[1].sum())
                avg_loss = total_loss / total_word_count

                sample_cnt += mini_batch.tgt[0].size(0)
                if verbose is VERBOSE_BATCH_WISE:
                    progress_bar.set_postfix_str("valid_loss=%.4e PPL=%.2f" % (avg_loss, avg_loss.exp()))
                if sample_cnt >= len(valid.dataset.examples):
                    break
            self.model.train()

            if verbose is VERBOSE_BATCH_WISE:
                progress_bar.close()
            return avg_loss
