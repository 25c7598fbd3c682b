import torch


def fit(model, loss, accuracy, optimizer, loader_train, num_epochs):
    for epoch in range(num_epochs):
        e_train = 0.0
        a_train = 0.0
        for xs_batch, y_batch in loader_train:
            ls_batch = model(xs_batch)
            e_batch = loss(ls_batch, y_batch)
            a_batch = accuracy(ls_batch.detach(), y_batch)
            optimizer.zero_grad()
            e_batch.backward()
            optimizer.step()
            e_train += e_batch.detach() / len(loader_train)
            a_train += a_batch / len(loader_train)
        print(f"epoch {epoch}: error {float(e_train):.4f} accuracy {float(a_train):.4f}")
