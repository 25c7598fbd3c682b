import torch
import torch.nn.functional as F
import torch.optim as optim
import yaml
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter
from torchvision import datasets

from data_transform import DataTransform, get_simclr_transform
from models.resnet_simclr import ResNetSimCLR
from utils import get_negative_mask, get_similarity_function

torch.manual_seed(0)

with open("config.yaml") as f:
    config = yaml.safe_load(f)

batch_size = config["batch_size"]
temperature = config["temperature"]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

train_dataset = datasets.STL10("./data", split="unlabeled", download=True,
                               transform=DataTransform(get_simclr_transform(crop_size=96, s=config["s"])))
train_loader = DataLoader(train_dataset, batch_size=batch_size, num_workers=config["num_workers"], drop_last=True,
                          shuffle=True, generator=torch.Generator().manual_seed(0))

model = ResNetSimCLR(base_model=config["base_convnet"], out_dim=config["out_dim"]).to(device)
criterion = torch.nn.CrossEntropyLoss(reduction="sum")
optimizer = optim.Adam(model.parameters(), 3e-4)
writer = SummaryWriter()

sim_func_dim1, sim_func_dim2 = get_similarity_function(config["use_cosine_similarity"])
negative_mask = get_negative_mask(batch_size).to(device)

n_iter = 0
for epoch in range(config["epochs"]):
    for step, ((xis, xjs), _) in enumerate(train_loader):
        optimizer.zero_grad()

        xis = xis.to(device)
        xjs = xjs.to(device)

        _, zis = model(xis)
        _, zjs = model(xjs)
        zis = F.normalize(zis, dim=1)
        zjs = F.normalize(zjs, dim=1)

        l_pos = sim_func_dim1(zis, zjs).view(batch_size, 1) / temperature
        negatives = torch.cat([zjs, zis], dim=0)
        labels = torch.zeros(batch_size, dtype=torch.long, device=device)

        loss = 0
        for positives in (zis, zjs):
            l_neg = sim_func_dim2(positives, negatives)
            l_neg = l_neg[negative_mask].view(batch_size, -1) / temperature
            logits = torch.cat([l_pos, l_neg], dim=1)
            loss = loss + criterion(logits, labels)
        loss = loss / (2 * batch_size)

        loss.backward()
        optimizer.step()
        if n_iter % 50 == 0:
            writer.add_scalar("loss", loss.item(), global_step=n_iter)
        n_iter += 1

torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": config["epochs"]},
           "./checkpoints/checkpoint.pth")
