import torch.nn.functional as F


def train_step(model, batch, optimizer, lambda_aux=0.4):
    images, labels = batch
    seg_out, aux_out, feats = model(images)
    loss_total = 0
    loss_total += F.cross_entropy(seg_out, labels, ignore_index=255)
    loss_total += lambda_aux * F.cross_entropy(aux_out, labels, ignore_index=255)
    loss_total += 0.1 * feats.pow(2).mean()
    optimizer.zero_grad()
    loss_total.backward()
    optimizer.step()
    return loss_total.item()


def train(model, loader, optimizer, iters):
    it = 0
    running = 0.0
    while it < iters:
        for batch in loader:
            loss_sum = 0
            seg_out, aux_out, feats = model(batch[0])
            for out, w in ((seg_out, 1.0), (aux_out, 0.4)):
                loss_sum += w * F.cross_entropy(out, batch[1], ignore_index=255)
            optimizer.zero_grad()
            loss_sum.backward()
            optimizer.step()
            running += loss_sum.item()
            it += 1
            if it >= iters:
                break
    return running / max(it, 1)
