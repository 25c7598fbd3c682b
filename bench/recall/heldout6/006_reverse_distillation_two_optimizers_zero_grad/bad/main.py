import torch


def train_epoch(encoder, bn, decoder, proj_layer, train_loader, optimizer_proj, optimizer_distill, loss_fn, accumulation_steps=2):
    bn.train()
    decoder.train()
    proj_layer.train()
    for i, (img, img_noise, _) in enumerate(train_loader):
        inputs = encoder(img)
        inputs_noise = encoder(img_noise)
        feature_space = proj_layer(inputs_noise)
        outputs = decoder(bn(feature_space))
        loss = loss_fn(inputs, outputs)
        optimizer_proj.zero_grad()  # expect: TCK111
        optimizer_distill.zero_grad()  # expect: TCK111
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer_proj.step()
            optimizer_distill.step()
