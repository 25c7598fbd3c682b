import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def train_model(model, criterion, optimizer, scheduler, dataloaders, num_epochs=10):
    best_model_wts = copy.deepcopy(model.state_dict())
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    outputs = F.softmax(outputs, dim=1)
                    loss = criterion(outputs, labels)  # expect: TCK605
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
            if phase == "train":
                scheduler.step()
    model.load_state_dict(best_model_wts)
    return model


def main(model, dataloaders):
    model = model.to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer_ft = torch.optim.Adam(model.parameters(), lr=3e-5)
    exp_lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer_ft, step_size=3, gamma=0.1)
    return train_model(model, criterion, optimizer_ft, exp_lr_scheduler, dataloaders, num_epochs=10)
