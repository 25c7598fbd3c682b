from typing import Callable, Generic, Iterable

import torch

from basecomponent import BaseComponent, InputData, TensorizedData


class ComponentTrainer(Generic[InputData, TensorizedData]):
    def __init__(self, model: BaseComponent, save_location: str, max_num_epochs: int = 200, optimizer_creator: Callable = None):
        self.__model = model
        self.__save_location = save_location
        self.__max_num_epochs = max_num_epochs
        self.__create_optimizer = optimizer_creator or (lambda params: torch.optim.Adam(params))

    def train(self, training_minibatches: Callable[[], Iterable[dict]], validation_minibatches: Callable[[], Iterable[dict]]) -> None:
        optimizer = self.__create_optimizer(self.__model.parameters())
        best_loss = float("inf")
        for epoch in range(self.__max_num_epochs):
            self.__model.train()
            for mb_data in training_minibatches():
                optimizer.zero_grad()
                mb_loss = self.__model(**mb_data)
                mb_loss.backward()
                optimizer.step()

            self.__model.eval()
            sum_loss, num_minibatches = 0.0, 0
            with torch.no_grad():
                for mb_data in validation_minibatches():
                    mb_loss = self.__model(**mb_data)
                    sum_loss += float(mb_loss.cpu())
                    num_minibatches += 1
            if num_minibatches and sum_loss / num_minibatches < best_loss:
                best_loss = sum_loss / num_minibatches
                torch.save(self.__model.state_dict(), self.__save_location)
