import torch


class Trainer:
    def __init__(self, exp, args):
        self.exp = exp
        self.args = args
        self.device = torch.device("cuda", torch.cuda.current_device())

    def train(self):
        model = self.exp.get_model().to(self.device)
        optimizer = torch.optim.SGD(model.parameters(), lr=self.exp.basic_lr_per_img * self.args.batch_size,
                                    momentum=0.9, nesterov=True)
        for epoch in range(self.exp.max_epoch):
            for _ in range(100):
                images = torch.randn(self.args.batch_size, 3, 640, 640, device=self.device)
                loss = model(images).square().mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
