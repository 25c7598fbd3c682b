import time

import numpy as np
import torch
import torch.optim as optim
from torch.autograd import Variable
from tqdm import tqdm

from nets.efficientdet import EfficientDetBackbone
from nets.efficientdet_training import FocalLoss


def get_lr(optimizer):
    for param_group in optimizer.param_groups:
        return param_group['lr']


def generator(batch_size, n_batches, input_shape=(512, 512), num_classes=20):
    rng = np.random.default_rng(0)
    for _ in range(n_batches):
        images = rng.random((batch_size, 3) + input_shape, dtype=np.float32)
        targets = []
        for _ in range(batch_size):
            xy = rng.random((3, 2)) * 400
            boxes = np.concatenate([xy, xy + 64, rng.integers(0, num_classes, (3, 1))], axis=1)
            targets.append(boxes.astype(np.float32))
        yield images, targets


def fit_one_epoch(net, focal_loss, epoch, epoch_size, epoch_size_val, gen, genval, Epoch, cuda):
    total_r_loss = 0
    total_c_loss = 0
    total_loss = 0
    val_loss = 0
    start_time = time.time()
    with tqdm(total=epoch_size, desc=f'Epoch {epoch + 1}/{Epoch}', postfix=dict, mininterval=0.3) as pbar:
        for iteration, batch in enumerate(gen):
            if iteration >= epoch_size:
                break
            images, targets = batch[0], batch[1]
            with torch.no_grad():
                if cuda:
                    images = Variable(torch.from_numpy(images).type(torch.FloatTensor)).cuda()
                    targets = [Variable(torch.from_numpy(ann).type(torch.FloatTensor)).cuda() for ann in targets]
                else:
                    images = Variable(torch.from_numpy(images).type(torch.FloatTensor))
                    targets = [Variable(torch.from_numpy(ann).type(torch.FloatTensor)) for ann in targets]

            optimizer.zero_grad()
            _, regression, classification, anchors = net(images)
            loss, c_loss, r_loss = focal_loss(classification, regression, anchors, targets, cuda=cuda)
            loss.backward()
            optimizer.step()

            total_loss += loss  # expect: TCK101
            total_r_loss += r_loss  # expect: TCK101
            total_c_loss += c_loss  # expect: TCK101
            waste_time = time.time() - start_time

            pbar.set_postfix(**{'Conf Loss': total_c_loss / (iteration + 1),
                                'Regression Loss': total_r_loss / (iteration + 1),
                                'lr': get_lr(optimizer),
                                'step/s': waste_time})
            pbar.update(1)
            start_time = time.time()

    print('Start Validation')
    with tqdm(total=epoch_size_val, desc=f'Epoch {epoch + 1}/{Epoch}', postfix=dict, mininterval=0.3) as pbar:
        for iteration, batch in enumerate(genval):
            if iteration >= epoch_size_val:
                break
            images_val, targets_val = batch[0], batch[1]
            with torch.no_grad():
                if cuda:
                    images_val = Variable(torch.from_numpy(images_val).type(torch.FloatTensor)).cuda()
                    targets_val = [Variable(torch.from_numpy(ann).type(torch.FloatTensor)).cuda() for ann in targets_val]
                else:
                    images_val = Variable(torch.from_numpy(images_val).type(torch.FloatTensor))
                    targets_val = [Variable(torch.from_numpy(ann).type(torch.FloatTensor)) for ann in targets_val]
                optimizer.zero_grad()
                _, regression, classification, anchors = net(images_val)
                loss, c_loss, r_loss = focal_loss(classification, regression, anchors, targets_val, cuda=cuda)
                val_loss += loss
            pbar.set_postfix(**{'total_loss': val_loss.item() / (iteration + 1)})
            pbar.update(1)

    print('Finish Validation')
    print('Total Loss: %.4f || Val Loss: %.4f ' % (total_loss / (epoch_size + 1), val_loss / (epoch_size_val + 1)))
    torch.save(model.state_dict(), 'logs/Epoch%d-Total_Loss%.4f-Val_Loss%.4f.pth' % (
        (epoch + 1), total_loss / (epoch_size + 1), val_loss / (epoch_size_val + 1)))
    return val_loss / (epoch_size_val + 1)


if __name__ == "__main__":
    phi = 0
    Cuda = torch.cuda.is_available()
    num_classes = 20
    model = EfficientDetBackbone(num_classes, phi)
    net = model.train()
    if Cuda:
        net = torch.nn.DataParallel(model)
        net = net.cuda()
    efficient_loss = FocalLoss()

    lr = 1e-3
    Batch_size = 8
    Init_Epoch, Freeze_Epoch, Unfreeze_Epoch = 0, 25, 50
    epoch_size, epoch_size_val = 500, 50

    optimizer = optim.Adam(net.parameters(), lr, weight_decay=5e-4)
    lr_scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)
    for param in model.backbone_net.parameters():
        param.requires_grad = False
    for epoch in range(Init_Epoch, Freeze_Epoch):
        val_loss = fit_one_epoch(net, efficient_loss, epoch, epoch_size, epoch_size_val,
                                 generator(Batch_size, epoch_size), generator(Batch_size, epoch_size_val),
                                 Freeze_Epoch, Cuda)
        lr_scheduler.step(val_loss)

    lr = 1e-4
    optimizer = optim.Adam(net.parameters(), lr, weight_decay=5e-4)
    lr_scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)
    for param in model.backbone_net.parameters():
        param.requires_grad = True
    for epoch in range(Freeze_Epoch, Unfreeze_Epoch):
        val_loss = fit_one_epoch(net, efficient_loss, epoch, epoch_size, epoch_size_val,
                                 generator(Batch_size, epoch_size), generator(Batch_size, epoch_size_val),
                                 Unfreeze_Epoch, Cuda)
        lr_scheduler.step(val_loss)
