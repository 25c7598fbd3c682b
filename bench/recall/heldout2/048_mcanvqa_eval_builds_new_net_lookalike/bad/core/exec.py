import torch
import torch.nn as nn

from core.model.net import Net


class Execution:
    def __init__(self, __C, dataset, dataset_eval=None):
        self.__C = __C
        self.dataset = dataset
        self.dataset_eval = dataset_eval

    def train(self, dataloader):
        net = Net(self.__C, self.dataset.pretrained_emb, self.dataset.token_size, self.dataset.ans_size)
        net.cuda()
        net.train()
        loss_fn = nn.BCELoss(reduction="sum").cuda()
        optim = torch.optim.Adam(net.parameters(), lr=self.__C.LR_BASE)
        for epoch in range(self.__C.MAX_EPOCH):
            for frcn_feat, grid_feat, ques_ix, ans in dataloader:
                optim.zero_grad()
                pred = net(frcn_feat.cuda(), grid_feat.cuda(), ques_ix.cuda())
                loss = loss_fn(pred, ans.cuda())
                loss.backward()
                optim.step()
            state = {"state_dict": net.state_dict(), "epoch": epoch + 1}
            torch.save(state, self.__C.CKPTS_PATH + "epoch" + str(epoch + 1) + ".pkl")
            if self.dataset_eval is not None:
                self.eval(self.dataset_eval, state_dict=net.state_dict(), valid=True)

    def eval(self, dataset, state_dict=None, valid=False):
        net = Net(self.__C, dataset.pretrained_emb, dataset.token_size, dataset.ans_size)
        net.cuda()
        net.eval()
        net.load_state_dict(state_dict)
        loader = torch.utils.data.DataLoader(dataset, batch_size=self.__C.EVAL_BATCH_SIZE, shuffle=False)
        with torch.no_grad():
            for frcn_feat, grid_feat, ques_ix, ans in loader:
                pred = net(frcn_feat.cuda(), grid_feat.cuda(), ques_ix.cuda())
