# %% [markdown]
# Metric embedding of single-cell RNA-seq profiles (paul15) with a triplet loss.

# %%
import logging

import numpy as np
import scanpy as sc
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split

import pytorch_metric_learning.utils.logging_presets as logging_presets
from pytorch_metric_learning import losses, miners, samplers, testers, trainers

logging.getLogger().setLevel(logging.INFO)


# %%
class EmbeddingNet(nn.Module):
    """Tabular MLP: linear -> (batch norm, dropout, linear, activation) blocks -> linear."""

    def __init__(self, in_sz, out_sz, emb_szs, ps, use_bn=True, actn=None):
        super().__init__()
        actn = actn if actn is not None else nn.ReLU()
        ps = np.zeros(len(emb_szs) - 1) if ps == 0 else ps
        layers = [nn.Linear(in_sz, emb_szs[0]), actn]
        for i in range(len(emb_szs) - 1):
            if use_bn:
                layers.append(nn.BatchNorm1d(emb_szs[i]))
            if ps[i] != 0:
                layers.append(nn.Dropout(ps[i]))
            layers += [nn.Linear(emb_szs[i], emb_szs[i + 1]), actn]
        layers.append(nn.Linear(emb_szs[-1], out_sz))
        self.fc = nn.Sequential(*layers)

    def forward(self, x):
        return self.fc(x)


class BasicDataset(torch.utils.data.Dataset):
    def __init__(self, data, labels):
        self.data = torch.from_numpy(np.asarray(data)).float()
        self.labels = labels

    def __getitem__(self, index):
        return self.data[index], self.labels[index]

    def __len__(self):
        return len(self.data)


# %%
adata = sc.datasets.paul15()
clusters = [0, 1, 2, 3, 4, 5, 13, 14, 15, 16]
codes = adata.obs["paul15_clusters"].cat.codes
indices = codes.isin(clusters)
data, labels = adata.X[indices], codes[indices].values
X_train, X_val, y_train, y_val = train_test_split(data, labels, stratify=labels, test_size=0.2, random_state=77)

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_dataset = BasicDataset(X_train, y_train)
val_dataset = BasicDataset(X_val, y_val)

model = EmbeddingNet(in_sz=adata.n_vars, out_sz=25, emb_szs=[1000, 500, 250, 100], ps=0, use_bn=False)
# one process, one device: the 100k-cell MLP fits; for several GPUs use the DDP multiprocessing example
model = model.to(device)
model_optimizer = torch.optim.Adam(model.parameters(), lr=1e-5, weight_decay=1e-4)

# %%
loss = losses.TripletMarginLoss(margin=0.1)
miner = miners.MultiSimilarityMiner(epsilon=0.1)
sampler = samplers.MPerClassSampler(y_train.flatten(), m=4, length_before_new_iter=len(train_dataset))

record_keeper, _, _ = logging_presets.get_record_keeper("example_logs", "example_tensorboard")
hooks = logging_presets.get_hook_container(record_keeper)
tester = testers.GlobalEmbeddingSpaceTester(
    end_of_testing_hook=hooks.end_of_testing_hook, dataloader_num_workers=2, use_trunk_output=True
)
end_of_epoch_hook = hooks.end_of_epoch_hook(
    tester, {"train": train_dataset, "val": val_dataset}, "example_saved_models", test_interval=1, patience=5
)

# %%
# the library trainer runs the forward, the triplet loss, backward() and the optimizer step
trainer = trainers.MetricLossOnly(
    {"trunk": model},
    {"trunk_optimizer": model_optimizer},
    64,
    {"metric_loss": loss},
    train_dataset,
    mining_funcs={"tuple_miner": miner},
    sampler=sampler,
    dataloader_num_workers=2,
    end_of_iteration_hook=hooks.end_of_iteration_hook,
    end_of_epoch_hook=end_of_epoch_hook,
)
trainer.train(num_epochs=10)

# %%
train_emb, train_lab = tester.get_all_embeddings(train_dataset, model, return_as_numpy=True)
val_emb, val_lab = tester.get_all_embeddings(val_dataset, model, return_as_numpy=True)
print(train_emb.shape, val_emb.shape)
