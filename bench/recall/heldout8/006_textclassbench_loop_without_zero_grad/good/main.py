import time

import torch
import torch.nn.functional as F
from torch import optim

import models
import utils
from opts import parse_opt

opt = parse_opt()
train_iter, test_iter = utils.loadData(opt)
model = models.setup(opt)
if torch.cuda.is_available():
    model.cuda()
model.train()
optimizer = optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=opt.learning_rate)
loss_fun = F.cross_entropy

for i in range(opt.max_epoch):
    for epoch, batch in enumerate(train_iter.__iter__()):
        start = time.time()
        text = batch.text[0] if opt.from_torchtext else batch.text
        optimizer.zero_grad()
        predicted = model(text)
        loss = loss_fun(predicted, batch.label)
        loss.backward()
        utils.clip_gradient(optimizer, opt.grad_clip)
        optimizer.step()
        if epoch % 100 == 0:
            print("%d iteration %d epoch with loss : %.5f in %.4f seconds" % (i, epoch, loss.item(), time.time() - start))
    percision = utils.evaluation(model, test_iter, opt.from_torchtext)
    print("%d iteration with percision %.4f" % (i, percision))
