import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

from model_def import TorchMoji


def calc_loss(loss_op, pred, yv):
    if type(loss_op) is nn.CrossEntropyLoss:
        return loss_op(pred.squeeze(), yv.squeeze())
    return loss_op(pred.squeeze(), yv.squeeze().float())


def fit_model(model, loss_op, optim_op, train_gen, val_gen, epochs, checkpoint_path, patience):
    best_loss = None
    bad_epochs = 0
    for epoch in range(epochs):
        model.train()
        for i, (X_train, y_train) in enumerate(train_gen):
            optim_op.zero_grad()
            output = model(X_train)
            loss = calc_loss(loss_op, output, y_train)
            loss = Variable(loss, requires_grad=True)  # expect: TCK112, TCK703
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1)
            optim_op.step()
            if i % 50 == 0:
                print("== Epoch", epoch, "step", i, "train loss", loss.item())

        model.eval()
        with torch.no_grad():
            val_loss = np.mean([calc_loss(loss_op, model(xv), yv).item() for xv, yv in val_gen])
        print("val loss", val_loss)
        if best_loss is None or val_loss < best_loss:
            best_loss = val_loss
            bad_epochs = 0
            torch.save(model.state_dict(), checkpoint_path)
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                break
    return best_loss


def finetune_last(nb_classes, vocab_size, train_gen, val_gen, checkpoint_path="finetuned.pt"):
    model = TorchMoji(nb_classes, vocab_size)
    # "last" method: only the classification layer is trained
    for name, param in model.named_parameters():
        param.requires_grad = name.startswith("output_layer")
    adam = optim.Adam((p for p in model.parameters() if p.requires_grad), lr=0.001)
    loss_op = nn.BCEWithLogitsLoss() if nb_classes <= 2 else nn.CrossEntropyLoss()
    return fit_model(model, loss_op, adam, train_gen, val_gen, epochs=1000,
                     checkpoint_path=checkpoint_path, patience=5)


if __name__ == "__main__":
    def batches(n):
        for _ in range(n):
            yield torch.randint(1, 50000, (32, 30)), torch.randint(0, 2, (32, 1))

    finetune_last(2, 50000, list(batches(100)), list(batches(10)))
