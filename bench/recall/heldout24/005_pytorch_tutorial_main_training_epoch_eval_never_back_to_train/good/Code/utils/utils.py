# coding: utf-8
import os

import matplotlib.pyplot as plt
import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class MyDataset(Dataset):
    """Reads `path label` lines from a text file."""

    def __init__(self, txt_path, transform=None, target_transform=None):
        with open(txt_path, "r") as fh:
            self.imgs = [(w[0], int(w[1])) for w in (line.split() for line in fh) if w]
        self.transform = transform
        self.target_transform = target_transform

    def __getitem__(self, index):
        fn, label = self.imgs[index]
        img = Image.open(fn).convert("RGB")
        if self.transform is not None:
            img = self.transform(img)
        return img, label

    def __len__(self):
        return len(self.imgs)


def validate(net, data_loader, set_name, classes_name):
    """Predict a whole loader; return the confusion matrix and the accuracy."""
    net.eval()
    cls_num = len(classes_name)
    conf_mat = np.zeros([cls_num, cls_num])
    with torch.no_grad():
        for images, labels in data_loader:
            _, predicted = torch.max(net(images), 1)
            for j in range(len(labels)):
                conf_mat[labels[j].item(), predicted[j].item()] += 1.0
    acc = conf_mat.trace() / conf_mat.sum()
    print(f"{set_name} set Accuracy:{acc:.2%}")
    return conf_mat, acc


def show_confMat(conf_mat, classes_name, set_name, out_dir):
    normalized = conf_mat / conf_mat.sum(axis=1, keepdims=True).clip(min=1)
    plt.imshow(normalized, cmap=plt.get_cmap("Greys"))
    plt.colorbar()
    ticks = np.arange(len(classes_name))
    plt.xticks(ticks, classes_name, rotation=60)
    plt.yticks(ticks, classes_name)
    plt.xlabel("Predict label")
    plt.ylabel("True label")
    plt.title("Confusion_Matrix_" + set_name)
    plt.savefig(os.path.join(out_dir, "Confusion_Matrix" + set_name + ".png"))
    plt.close()
