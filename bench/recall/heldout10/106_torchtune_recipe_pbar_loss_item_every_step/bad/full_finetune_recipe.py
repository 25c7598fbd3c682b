import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

from model import TinyDecoder


class FullFinetuneRecipeSingleDevice:
    def __init__(self, device, epochs=2, lr=2e-5, gradient_accumulation_steps=4, log_every_n_steps=10):
        self._device = device
        self.total_epochs = epochs
        self._gradient_accumulation_steps = gradient_accumulation_steps
        self._log_every_n_steps = log_every_n_steps
        self._model = TinyDecoder().to(device)
        self._optimizer = torch.optim.AdamW(self._model.parameters(), lr=lr)
        self._loss_fn = nn.CrossEntropyLoss()
        self.total_training_steps = 0

    def setup_data(self, n=512, seq_len=64, batch_size=8):
        tokens = torch.randint(0, 1000, (n, seq_len + 1))
        self._dataloader = DataLoader(TensorDataset(tokens[:, :-1], tokens[:, 1:]), batch_size=batch_size, shuffle=True)

    def train(self):
        self._model.train()
        for curr_epoch in range(self.total_epochs):
            pbar = tqdm(self._dataloader)
            for idx, (input_ids, labels) in enumerate(pbar):
                input_ids = input_ids.to(self._device)
                labels = labels.to(self._device)

                logits = self._model(input_ids).transpose(1, 2)
                loss = self._loss_fn(logits, labels)

                pbar.set_description(f"{curr_epoch + 1}|{idx + 1}|Loss: {loss.item()}")  # expect: TCK205
                if self.total_training_steps % self._log_every_n_steps == 0:
                    print({"loss": loss.item(), "lr": self._optimizer.param_groups[0]["lr"]})

                loss = loss / self._gradient_accumulation_steps
                loss.backward()
                if (idx + 1) % self._gradient_accumulation_steps == 0:
                    self._optimizer.step()
                    self._optimizer.zero_grad(set_to_none=True)
                    self.total_training_steps += 1


if __name__ == "__main__":
    recipe = FullFinetuneRecipeSingleDevice(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    recipe.setup_data()
    recipe.train()
