import logging
import math
import os
import time

import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau

from language_model import LanguageModel

log = logging.getLogger("flair")


class LanguageModelTrainer:
    def __init__(self, model: LanguageModel, corpus):
        self.model = model
        self.corpus = corpus
        self.loss_function = torch.nn.CrossEntropyLoss()
        self.log_interval = 100

    def train(self, base_path, sequence_length, learning_rate=20.0, mini_batch_size=100, anneal_factor=0.25,
              patience=10, clip=0.25, max_epochs=1000):
        number_of_splits = len(self.corpus.train_files)
        val_data = self._batchify(self.corpus.valid, mini_batch_size)
        os.makedirs(base_path, exist_ok=True)
        savefile = os.path.join(base_path, "best-lm.pt")

        best_val_loss = float("inf")
        optimizer = torch.optim.SGD(self.model.parameters(), lr=learning_rate)
        scheduler = ReduceLROnPlateau(optimizer, factor=anneal_factor, patience=patience)
        ntokens = len(self.corpus.dictionary)

        for split in range(1, number_of_splits * max_epochs + 1):
            train_data = self._batchify(self.corpus.get_next_train_slice(), mini_batch_size)
            self.model.train()
            total_loss, start_time = 0.0, time.time()
            hidden = self.model.init_hidden(mini_batch_size)

            for batch, i in enumerate(range(0, train_data.size(0) - 1, sequence_length)):
                data, targets = self._get_batch(train_data, i, sequence_length)
                # detach the hidden state from how it was previously produced
                hidden = self._repackage_hidden(hidden)
                optimizer.zero_grad()
                output, rnn_output, hidden = self.model(data, hidden)
                loss = self.loss_function(output.view(-1, ntokens), targets)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), clip)
                optimizer.step()
                total_loss += loss.item()

                if batch % self.log_interval == 0 and batch > 0:
                    cur_loss = total_loss / self.log_interval
                    log.info("| split %d | batch %d | ms/batch %.2f | loss %.2f | ppl %.2f", split, batch,
                             (time.time() - start_time) * 1000 / self.log_interval, cur_loss, math.exp(cur_loss))
                    total_loss, start_time = 0.0, time.time()

            # validation after every split
            val_loss = self.evaluate(val_data, mini_batch_size, sequence_length)
            scheduler.step(val_loss)
            if val_loss < best_val_loss:
                self.model.save(savefile)
                best_val_loss = val_loss
            log.info("| end of split %d | valid loss %.2f | valid ppl %.2f", split, val_loss, math.exp(val_loss))

    def evaluate(self, data_source, eval_batch_size, sequence_length):
        # Turn on evaluation mode which disables dropout.
        self.model.eval()
        total_loss = 0.0
        ntokens = len(self.corpus.dictionary)
        hidden = self.model.init_hidden(eval_batch_size)

        for i in range(0, data_source.size(0) - 1, sequence_length):
            data, targets = self._get_batch(data_source, i, sequence_length)
            prediction, rnn_output, hidden = self.model(data, hidden)  # expect: TCK113
            output_flat = prediction.view(-1, ntokens)
            total_loss += len(data) * self.loss_function(output_flat, targets).item()
            hidden = self._repackage_hidden(hidden)
        return total_loss / len(data_source)

    @staticmethod
    def _batchify(data, batch_size):
        nbatch = data.size(0) // batch_size
        data = data.narrow(0, 0, nbatch * batch_size)
        data = data.view(batch_size, -1).t().contiguous()
        return data.cuda() if torch.cuda.is_available() else data

    @staticmethod
    def _get_batch(source, i, sequence_length):
        seq_len = min(sequence_length, len(source) - 1 - i)
        return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].view(-1)

    @staticmethod
    def _repackage_hidden(h):
        return tuple(v.detach() for v in h)
