import torch
from torch.autograd import Variable


def train(train_loader, tnet, criterion, optimizer, losses, emb_norms):
    tnet.train()
    for data1, data2, data3 in train_loader:
        data1, data2, data3 = data1.cuda(), data2.cuda(), data3.cuda()
        data1, data2, data3 = Variable(data1), Variable(data2), Variable(data3)  # expect: TCK703
        dista, distb, embedded_x, embedded_y, embedded_z = tnet(data1, data2, data3)
        target = torch.FloatTensor(dista.size()).fill_(1)  # expect: TCK703
        target = Variable(target.cuda())  # expect: TCK703
        loss_triplet = criterion(dista, distb, target)
        loss_embedd = embedded_x.norm(2) + embedded_y.norm(2) + embedded_z.norm(2)
        loss = loss_triplet + 0.001 * loss_embedd
        losses.update(loss_triplet.data[0], data1.size(0))  # expect: TCK115
        emb_norms.update(loss_embedd.data[0] / 3, data1.size(0))  # expect: TCK115
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
