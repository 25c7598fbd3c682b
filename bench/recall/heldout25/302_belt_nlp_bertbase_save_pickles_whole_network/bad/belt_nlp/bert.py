"""Shared base of the BERT classifiers and regressors: fitting, prediction, saving and loading."""
from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Optional

import torch
from torch import Tensor
from torch.nn import CrossEntropyLoss, DataParallel, Linear, Module, MSELoss
from torch.optim import AdamW
from torch.utils.data import DataLoader, RandomSampler
from transformers import AutoModel, AutoTokenizer, PreTrainedTokenizerBase

from belt_nlp.tensor_utils import TokenizedDataset


class BertBase(ABC):
    @abstractmethod
    def __init__(self, num_labels: int, batch_size: int, learning_rate: float, epochs: int,
                 accumulation_steps: int = 1, tokenizer: Optional[PreTrainedTokenizerBase] = None,
                 neural_network: Optional[Module] = None,
                 pretrained_model_name_or_path: Optional[str] = "bert-base-uncased",
                 device: str = "cuda:0", many_gpus: bool = False):
        self.num_labels = num_labels
        if not tokenizer:
            tokenizer = AutoTokenizer.from_pretrained(pretrained_model_name_or_path)
        if not neural_network:
            neural_network = BertNN(AutoModel.from_pretrained(pretrained_model_name_or_path), num_labels)
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.accumulation_steps = accumulation_steps
        self._params = {"batch_size": batch_size, "learning_rate": learning_rate,
                        "epochs": epochs, "accumulation_steps": accumulation_steps}
        self.device = device
        self.many_gpus = many_gpus
        self.tokenizer = tokenizer
        self.neural_network = neural_network
        self.collate_fn = None
        self.neural_network.to(device)
        if device.startswith("cuda") and many_gpus:
            self.neural_network = DataParallel(self.neural_network)

    def fit(self, x_train: list[str], y_train: list, epochs: Optional[int] = None) -> None:
        optimizer = AdamW(self.neural_network.parameters(), lr=self.learning_rate)
        dataset = TokenizedDataset(self._tokenize(x_train), y_train)
        loader = DataLoader(dataset, sampler=RandomSampler(dataset), batch_size=self.batch_size,
                            collate_fn=self.collate_fn)
        for _ in range(epochs or self.epochs):
            self.neural_network.train()
            for step, batch in enumerate(loader):
                if self.num_labels > 1:
                    labels = batch[-1].long().to(self.device)
                    loss = CrossEntropyLoss()(self._evaluate_single_batch(batch), labels)
                else:
                    labels = batch[-1].float().to(self.device)
                    loss = MSELoss()(torch.flatten(self._evaluate_single_batch(batch)), labels)
                (loss / self.accumulation_steps).backward()
                if (step + 1) % self.accumulation_steps == 0 or step + 1 == len(loader):
                    optimizer.step()
                    optimizer.zero_grad()

    @abstractmethod
    def _tokenize(self, texts: list[str]):
        ...

    @abstractmethod
    def _evaluate_single_batch(self, batch: tuple[Tensor]) -> Tensor:
        ...

    def save(self, model_dir: str) -> None:
        model_dir = Path(model_dir)
        model_dir.mkdir(parents=True, exist_ok=True)
        with open(model_dir / "params.json", "w", encoding="utf-8") as file:
            json.dump(self._params, file)
        self.tokenizer.save_pretrained(model_dir)
        if self.many_gpus:
            torch.save(self.neural_network.module, model_dir / "model.bin")  # expect: TCK402
        else:
            torch.save(self.neural_network, model_dir / "model.bin")  # expect: TCK402

    @classmethod
    def load(cls, model_dir: str, device: str = "cuda:0", many_gpus: bool = False) -> BertBase:
        model_dir = Path(model_dir)
        with open(model_dir / "params.json", "r", encoding="utf-8") as file:
            params = json.load(file)
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        neural_network = torch.load(f=model_dir / "model.bin", map_location=device)
        return cls(**params, tokenizer=tokenizer, neural_network=neural_network,
                   pretrained_model_name_or_path=None, device=device, many_gpus=many_gpus)


class BertNN(Module):
    def __init__(self, model, num_labels: int):
        super().__init__()
        self.model = model
        self.linear = Linear(768, num_labels)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        x = self.model(input_ids, attention_mask)
        return self.linear(x[0][:, 0, :])
