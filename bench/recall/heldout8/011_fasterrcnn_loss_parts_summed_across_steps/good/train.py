import torch

from frcnn_training import FasterRCNNTrainer


def fit_one_epoch(net, train_util, epoch, epoch_size, gen, Epoch):
    total_loss = 0
    rpn_loc_loss = 0
    rpn_cls_loss = 0
    roi_loc_loss = 0
    roi_cls_loss = 0
    for iteration, batch in enumerate(gen):
        if iteration >= epoch_size:
            break
        imgs, boxes, labels = batch[0], batch[1], batch[2]
        with torch.no_grad():
            imgs = torch.from_numpy(imgs).type(torch.FloatTensor).cuda()
        losses = train_util.train_step(imgs, boxes, labels, 1)
        rpn_loc, rpn_cls, roi_loc, roi_cls, total = losses
        total_loss += total.item()
        rpn_loc_loss += rpn_loc.item()
        rpn_cls_loss += rpn_cls.item()
        roi_loc_loss += roi_loc.item()
        roi_cls_loss += roi_cls.item()
        print("Epoch %d/%d iter %d total_loss %.4f" % (epoch + 1, Epoch, iteration, total_loss / (iteration + 1)))
    return total_loss / epoch_size


def main(model, gen, epoch_size, lr=1e-4, epochs=50):
    optimizer = torch.optim.Adam(model.parameters(), lr, weight_decay=5e-4)
    train_util = FasterRCNNTrainer(model, optimizer)
    for epoch in range(epochs):
        fit_one_epoch(model, train_util, epoch, epoch_size, gen, epochs)
