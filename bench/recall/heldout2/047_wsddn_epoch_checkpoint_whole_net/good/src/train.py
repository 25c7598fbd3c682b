import torch
from torch import optim
from torch.utils.data import DataLoader

from datasets import VocAndEdgeBoxDataset
from network import WSDDN

net = WSDDN(base_net="vgg")
net.to("cuda")
optimizer = optim.Adam(net.parameters(), lr=1e-5, weight_decay=5e-4)
train_dl = DataLoader(VocAndEdgeBoxDataset("trainval"), batch_size=1, shuffle=True, num_workers=4)

for epoch in range(1, 21):
    net.train()
    for batch_imgs, batch_boxes, batch_scores, batch_target in train_dl:
        optimizer.zero_grad()
        combined_scores = net(batch_imgs.to("cuda"), batch_boxes.to("cuda"), batch_scores.to("cuda"))
        loss = WSDDN.calculate_loss(combined_scores, batch_target[0].to("cuda"))
        loss.backward()
        optimizer.step()
    if epoch % 5 == 0:
        torch.save(net.state_dict(), f"states/vgg_model_epoch{epoch}.pt")
