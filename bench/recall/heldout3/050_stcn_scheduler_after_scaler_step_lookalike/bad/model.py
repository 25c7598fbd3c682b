import torch
import torch.optim as optim


class STCNModel:
    def __init__(self, para, net):
        self.para = para
        self.STCN = net
        self.optimizer = optim.Adam(filter(lambda p: p.requires_grad, self.STCN.parameters()), lr=para["lr"])
        self.scheduler = optim.lr_scheduler.MultiStepLR(self.optimizer, para["steps"], para["gamma"])
        self.scaler = torch.amp.GradScaler("cuda")
        self._is_train = True

    def do_pass(self, data, compute_loss):
        with torch.autocast("cuda", enabled=self.para["amp"]):
            losses = compute_loss(self.STCN, data)
        if self._is_train:
            self.optimizer.zero_grad(set_to_none=True)
            if self.para["amp"]:
                self.scaler.scale(losses["total_loss"]).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                losses["total_loss"].backward()
                self.optimizer.step()
            self.scheduler.step()
        return losses


def train(model, loader, compute_loss, epochs):
    for epoch in range(epochs):
        for data in loader:
            model.do_pass(data, compute_loss)
