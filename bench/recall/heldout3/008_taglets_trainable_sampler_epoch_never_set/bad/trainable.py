import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Trainable:
    def __init__(self, model, criterion, num_epochs, batch_size):
        self.model = model
        self.criterion = criterion
        self.num_epochs = num_epochs
        self.batch_size = batch_size
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.003, momentum=0.9)

    def _train_epoch(self, rank, loader):
        self.model.train()
        running_loss = 0.0
        for inputs, labels in loader:
            inputs, labels = inputs.cuda(rank), labels.cuda(rank)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(inputs), labels)
            loss.backward()
            self.optimizer.step()
            running_loss += loss.item()
        return running_loss / len(loader)

    def _do_train(self, rank, train_data):
        train_sampler = DistributedSampler(train_data)  # expect: TCK206
        train_loader = DataLoader(train_data, batch_size=self.batch_size, shuffle=False, sampler=train_sampler)
        for epoch in range(self.num_epochs):
            loss = self._train_epoch(rank, train_loader)
            if rank == 0:
                print(f"epoch {epoch}: {loss:.4f}")
