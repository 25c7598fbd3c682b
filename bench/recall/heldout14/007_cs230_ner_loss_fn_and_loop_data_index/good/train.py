import logging

import torch
import torch.optim as optim
from tqdm import trange

import net
from evaluate import evaluate


class RunningAverage:
    def __init__(self):
        self.steps = 0
        self.total = 0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total / float(self.steps)


def train(model, optimizer, loss_fn, data_iterator, metrics, params, num_steps):
    model.train()
    summ = []
    loss_avg = RunningAverage()
    t = trange(num_steps)
    for i in t:
        train_batch, labels_batch = next(data_iterator)
        output_batch = model(train_batch)
        loss = loss_fn(output_batch, labels_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % params["save_summary_steps"] == 0:
            output_np = output_batch.data.cpu().numpy()
            labels_np = labels_batch.data.cpu().numpy()
            summary_batch = {metric: metrics[metric](output_np, labels_np) for metric in metrics}
            summary_batch["loss"] = loss.item()
            summ.append(summary_batch)
        loss_avg.update(loss.item())
        t.set_postfix(loss=f"{loss_avg():05.3f}")


def train_and_evaluate(model, data_loader, optimizer, loss_fn, metrics, params):
    best_val_acc = 0.0
    for epoch in range(params["num_epochs"]):
        logging.info(f"Epoch {epoch + 1}/{params['num_epochs']}")
        num_steps = (params["train_size"] + 1) // params["batch_size"]
        train(model, optimizer, loss_fn, data_loader.data_iterator("train", shuffle=True), metrics, params, num_steps)
        num_steps = (params["val_size"] + 1) // params["batch_size"]
        val_metrics = evaluate(model, loss_fn, data_loader.data_iterator("val", shuffle=False), metrics, num_steps)
        if val_metrics["accuracy"] >= best_val_acc:
            best_val_acc = val_metrics["accuracy"]
            torch.save({"epoch": epoch + 1, "state_dict": model.state_dict()}, "best.pth.tar")


def main(data_loader, params):
    model = net.Net(params["vocab_size"], params["embedding_dim"], params["lstm_hidden_dim"],
                    params["number_of_tags"]).cuda()
    optimizer = optim.Adam(model.parameters(), lr=params["learning_rate"])
    train_and_evaluate(model, data_loader, optimizer, net.loss_fn, net.metrics, params)
