import json
import os
import pickle
import sys
from datetime import datetime

import numpy as np
import torch
from torch import nn
from torch.utils.data.dataloader import DataLoader
from torch.utils.tensorboard import SummaryWriter

sys.path.append(os.path.dirname(os.path.abspath(os.path.dirname(__file__))))

from dataset_covernet import NuSceneDataset_CoverNet
from network import CoverNet, mean_pointwise_l2_distance
from nuscenes.prediction.models.backbone import ResNetBackbone
from utils import Json_Parser


def run(config_file):
    config = Json_Parser(config_file).load_parser()
    learning = config["LEARNING"]
    device = torch.device(learning["device"] if torch.cuda.is_available() else "cpu")

    train_loader = DataLoader(NuSceneDataset_CoverNet(train_mode=True, config_file_name=config_file),
                              batch_size=learning["batch_size"], shuffle=True)
    val_loader = DataLoader(NuSceneDataset_CoverNet(train_mode=False, config_file_name=config_file),
                            batch_size=learning["val_batch_size"], shuffle=True)

    backbone = ResNetBackbone("resnet50")
    backbone.load_state_dict(torch.load(learning["weight_path"]))
    model = CoverNet(backbone, learning["num_modes"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=learning["lr"], momentum=learning["momentum"])
    criterion = nn.CrossEntropyLoss()
    with open(learning["trajectory_set_path"], "rb") as f:
        lattice = torch.Tensor(pickle.load(f))

    stamp = datetime.now().strftime("%Y%m%d-%H_%M_%S")
    writer = SummaryWriter("./result/tensorboard/" + stamp)
    writer.add_text("config", json.dumps(config))
    save_path = "./result/model/model_{}.pth".format(stamp)

    step = 1
    for epoch in range(learning["n_epochs"] + 1):
        train_losses, val_losses = [], []
        for batch in train_loader:
            model.train()
            image = torch.Tensor(batch["img"]).permute(2, 0, 1).to(device)
            agent_state = torch.Tensor(batch["ego_state"].tolist()).to(device)
            logits = model(image, agent_state)
            future = torch.Tensor(batch["future_global_ego_pos"][:, :2].tolist())
            label = mean_pointwise_l2_distance(lattice, future)

            optimizer.zero_grad()
            loss = criterion(logits, label)
            loss.backward()
            optimizer.step()
            step += 1
            train_losses.append(loss.item())

            if step % learning["print_size"] == 0:
                with torch.no_grad():
                    model.eval()
                    for k, val_batch in enumerate(val_loader):
                        image = torch.Tensor(val_batch["img"]).permute(2, 0, 1).to(device)
                        agent_state = torch.Tensor(val_batch["ego_state"].tolist()).to(device)
                        logits = model(image, agent_state)
                        future = torch.Tensor(val_batch["future_global_ego_pos"][:, :2].tolist())
                        label = mean_pointwise_l2_distance(lattice, future)
                        val_losses.append(criterion(logits, label).item())
                        if k + 1 == 10:
                            break
                    mean_train, mean_val = np.mean(train_losses), np.mean(val_losses)
                    writer.add_scalar("Loss", mean_train, epoch)
                    writer.add_scalar("Val Loss", mean_val, epoch)
                    print("Epoch {}/{} | step {} | loss {:.5f} | val {:.5f}".format(
                        epoch + 1, learning["n_epochs"], step, mean_train, mean_val))
                    torch.save(model.state_dict(), save_path)


if __name__ == "__main__":
    run(config_file="./covernet/covernet_config.json")
