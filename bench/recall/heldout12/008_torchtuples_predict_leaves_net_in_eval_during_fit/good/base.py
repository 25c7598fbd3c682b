import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from callbacks import CallbackHandler


class Model:
    def __init__(self, net, loss, optimizer=None, device=None):
        self.net = net
        self.loss = loss
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.net.to(self.device)
        self.optimizer = optimizer or torch.optim.AdamW(self.net.parameters(), lr=1e-3)

    def compute_loss(self, input, target):
        out = self.net(input.to(self.device))
        return self.loss(out, target.to(self.device))

    def fit_dataloader(self, dataloader, epochs=1, callbacks=None):
        self.callbacks = CallbackHandler(callbacks)
        self.callbacks.give_model(self)
        stop_signal = self.callbacks.on_fit_start()
        self.net.train()
        for _ in range(epochs):
            for input, target in dataloader:
                self.optimizer.zero_grad()
                self.batch_loss = self.compute_loss(input, target)
                self.batch_loss.backward()
                self.optimizer.step()
            stop_signal = self.callbacks.on_epoch_end()
            if stop_signal:
                break
        return self

    def fit(self, input, target, batch_size=256, epochs=1, callbacks=None):
        dataset = TensorDataset(torch.as_tensor(input, dtype=torch.float32), torch.as_tensor(target))
        return self.fit_dataloader(DataLoader(dataset, batch_size, shuffle=True), epochs, callbacks)

    def predict_dataloader(self, dataloader, eval_=True):
        if eval_:
            self.net.eval()
        preds = []
        with torch.no_grad():
            for (input,) in dataloader:
                preds.append(self.net(input.to(self.device)).cpu())
        if eval_:
            self.net.train()
        return torch.cat(preds).numpy()

    def predict(self, input, batch_size=8224, eval_=True):
        dataset = TensorDataset(torch.as_tensor(np.asarray(input), dtype=torch.float32))
        return self.predict_dataloader(DataLoader(dataset, batch_size), eval_)
