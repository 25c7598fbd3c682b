import torch
from torch.autograd import Variable
from tqdm import tqdm


class Trainer(object):
    """Generic epoch runner: the loss function and logger come from the caller."""

    cuda_ok = torch.cuda.is_available()

    def __init__(self, model, optimizer, loss_f, logger, scheduler=None, log_freq=5, verbose=True, use_cuda=True):
        self.model = model
        if self.cuda_ok:
            model.cuda()
        self._optimizer = optimizer
        self._loss_f = loss_f
        self._logger = logger
        self._scheduler = scheduler
        self._steps = {"train": 0, "test": 0}
        self._epochs = 0
        self._log_freq = log_freq
        self._verbose = verbose
        self._use_cuda = use_cuda

    def _loop(self, loader, is_train=True):
        mode = "train" if is_train else "test"
        n_samples = len(loader.dataset)
        batches = tqdm(loader, ncols=80) if self._verbose else loader
        losses, corrects = [], []
        for input, target in batches:
            loss, correct = self._iteration(input, target, is_train)
            losses.append(loss)
            corrects.append(correct)
            self._steps[mode] += 1
            if is_train and self._steps[mode] % self._log_freq == 0:
                self._logger.add_scalar("iter_train_loss", loss, self._steps[mode])
        if losses:
            self._logger.add_scalar(f"epoch_{mode}_loss", sum(losses) / len(loader), self._epochs)
        if corrects:
            self._logger.add_scalar(f"{mode}_accuracy", sum(corrects) / n_samples, self._epochs)

    def _iteration(self, input, target, is_train):
        input, target = self.variable(input), self.variable(target)
        self._optimizer.zero_grad()
        with torch.set_grad_enabled(is_train):
            output = self.model(input)
            loss = self._loss_f(output, target)
        if is_train:
            loss.backward()
            self._optimizer.step()
        loss = loss.item()
        correct = self.correct(output, target)
        return loss, correct

    def train(self, loader):
        self.model.train()
        self._loop(loader)
        if self._scheduler is not None:
            self._scheduler.step()
        for name, param in self.model.named_parameters():
            self._logger.add_histogram(name, param, self._epochs, bins="sqrt")
        self._epochs += 1

    def test(self, loader):
        self.model.eval()
        self._loop(loader, is_train=False)

    def start(self, epochs, train_data, test_data):
        try:
            for ep in range(1, epochs + 1):
                print(f"epoch {ep}")
                self.train(train_data)
                self.test(test_data)
        except KeyboardInterrupt:
            print("\ninterrupted")
        finally:
            self._logger.close()

    @staticmethod
    def correct(output, target):
        return (output.max(dim=1)[1] == target).sum().item()

    def variable(self, t):
        if self.cuda_ok and self._use_cuda:
            t = t.cuda()
        return Variable(t)
