import logging
import time

import numpy as np
import torch
from torch.utils.data import BatchSampler, RandomSampler, SequentialSampler

from models import DeepCCA
from utils import load_data


class Solver:
    def __init__(self, model, outdim_size, epoch_num, batch_size, learning_rate, reg_par,
                 device=torch.device("cpu")):
        self.model = model.to(device).double()
        self.loss = model.loss
        self.optimizer = torch.optim.RMSprop(self.model.parameters(), lr=learning_rate,
                                             weight_decay=reg_par)
        self.epoch_num = epoch_num
        self.batch_size = batch_size
        self.outdim_size = outdim_size
        self.device = device
        self.logger = logging.getLogger("dcca")

    def fit(self, x1, x2, vx1=None, vx2=None, tx1=None, tx2=None, checkpoint="checkpoint.pt"):
        x1.to(self.device)  # expect: TCK202
        x2.to(self.device)  # expect: TCK202
        data_size = x1.size(0)

        if vx1 is not None and vx2 is not None:
            best_val_loss = float("inf")
            vx1.to(self.device)  # expect: TCK202
            vx2.to(self.device)  # expect: TCK202
        if tx1 is not None and tx2 is not None:
            tx1.to(self.device)  # expect: TCK202
            tx2.to(self.device)  # expect: TCK202

        for epoch in range(self.epoch_num):
            start = time.time()
            self.model.train()
            train_losses = []
            batches = list(BatchSampler(RandomSampler(range(data_size)),
                                        batch_size=self.batch_size, drop_last=False))
            for idx in batches:
                self.optimizer.zero_grad()
                o1, o2 = self.model(x1[idx, :], x2[idx, :])
                loss = self.loss(o1, o2)
                train_losses.append(loss.item())
                loss.backward()
                self.optimizer.step()
            message = f"epoch {epoch + 1}/{self.epoch_num} - {time.time() - start:.1f}s - " \
                      f"train {np.mean(train_losses):.4f}"
            if vx1 is not None and vx2 is not None:
                val_loss = self.test(vx1, vx2)
                message += f" - val {val_loss:.4f}"
                if val_loss < best_val_loss:
                    best_val_loss = val_loss
                    torch.save(self.model.state_dict(), checkpoint)
            else:
                torch.save(self.model.state_dict(), checkpoint)
            self.logger.info(message)

        self.model.load_state_dict(torch.load(checkpoint, weights_only=True))
        if tx1 is not None and tx2 is not None:
            self.logger.info(f"test loss {self.test(tx1, tx2):.4f}")

    def test(self, x1, x2):
        self.model.eval()
        losses = []
        with torch.no_grad():
            batches = BatchSampler(SequentialSampler(range(x1.size(0))),
                                   batch_size=self.batch_size, drop_last=False)
            for idx in batches:
                o1, o2 = self.model(x1[idx, :], x2[idx, :])
                losses.append(self.loss(o1, o2).item())
        return float(np.mean(losses))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data1 = load_data("./noisymnist_view1.gz")
    data2 = load_data("./noisymnist_view2.gz")
    outdim_size = 10
    model = DeepCCA([1024, 1024, 1024, outdim_size], [1024, 1024, 1024, outdim_size],
                    784, 784, outdim_size)
    solver = Solver(model, outdim_size, epoch_num=10, batch_size=800, learning_rate=1e-3,
                    reg_par=1e-5, device=device)
    solver.fit(data1[0][0], data2[0][0], data1[1][0], data2[1][0], data1[2][0], data2[2][0])
