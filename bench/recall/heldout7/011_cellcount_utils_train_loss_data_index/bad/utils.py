import torch

gpu_dtype = torch.cuda.FloatTensor


def train(loader_train, model, loss_fn, optimizer, print_every=100):
    model.train()
    for t, (x, y) in enumerate(loader_train):
        x_var = x.type(gpu_dtype)
        y_var = y.type(gpu_dtype)
        scores = model(x_var)
        loss = loss_fn(scores, y_var).mean()
        if (t + 1) % print_every == 0:
            print("t = %d, loss = %.4f" % (t + 1, loss.data[0]))  # expect: TCK115
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
