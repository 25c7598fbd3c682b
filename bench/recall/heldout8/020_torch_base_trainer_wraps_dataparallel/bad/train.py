import torch
import torch.optim
from torch.autograd import Variable

from data.data_entry import select_eval_loader, select_train_loader
from model.model_entry import select_model
from options import prepare_train_args
from utils.logger import Logger


class Trainer:
    def __init__(self):
        args = prepare_train_args()
        self.args = args
        torch.manual_seed(args.seed)
        self.logger = Logger(args)
        self.train_loader = select_train_loader(args)
        self.val_loader = select_eval_loader(args)
        self.model = select_model(args)
        self.model = torch.nn.DataParallel(self.model)  # expect: TCK204
        self.optimizer = torch.optim.Adam(self.model.parameters(), self.args.lr,
                                          betas=(self.args.momentum, self.args.beta),
                                          weight_decay=self.args.weight_decay)

    def train(self):
        for epoch in range(self.args.epochs):
            self.train_per_epoch(epoch)
            self.logger.save_check_point(self.model, epoch)

    def train_per_epoch(self, epoch):
        self.model.train()
        for i, data in enumerate(self.train_loader):
            img, pred, label = self.step(data)
            loss = (pred - label).abs().mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if i % self.args.print_freq == 0:
                print("Train: Epoch {} batch {} Loss {}".format(epoch, i, loss.item()))

    def step(self, data):
        img, label = data
        img = Variable(img).cuda()
        label = Variable(label).cuda()
        pred = self.model(img)
        return img, pred, label


def main():
    trainer = Trainer()
    trainer.train()


if __name__ == "__main__":
    main()
