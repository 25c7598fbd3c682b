"""Fine-tune a taglet on the labeled MNIST-like images of a task, then let it vote on the rest."""
from types import SimpleNamespace

import torch
from torch.utils.data import DataLoader, TensorDataset

from taglets.taglet import FineTuneTaglet

task = SimpleNamespace(task_id="mnist-demo", number_of_channels=1, classes=[str(i) for i in range(10)])
images = torch.randn(256, 1, 28, 28)
labels = torch.randint(0, 10, (256,))
train_loader = DataLoader(TensorDataset(images[:200], labels[:200]), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(images[200:], labels[200:]), batch_size=32)
unlabeled_loader = DataLoader(torch.randn(64, 1, 28, 28), batch_size=32)

use_gpu = torch.cuda.is_available()
taglet = FineTuneTaglet(task)
taglet.num_epochs = 5
taglet.train(train_loader, val_loader, use_gpu)
votes = taglet.execute(unlabeled_loader, use_gpu)
print(votes[:10])
