import torch
from torch.optim import Adam

import utils
from vgg import Vgg16


def train(args, transformer, train_loader, style):
    optimizer = Adam(transformer.parameters(), args.lr)
    mse_loss = torch.nn.MSELoss()
    vgg = Vgg16(requires_grad=False)
    features_style = vgg(style)
    gram_style = [utils.gram_matrix(y) for y in features_style]

    for e in range(args.epochs):
        transformer.train()
        agg_content_loss = 0.
        agg_style_loss = 0.
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            optimizer.zero_grad()
            y = transformer(x)
            features_y = vgg(y)
            features_x = vgg(x)
            content_loss = args.content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
            style_loss = 0.
            for ft_y, gm_s in zip(features_y, gram_style):
                gm_y = utils.gram_matrix(ft_y)
                style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
            style_loss *= args.style_weight
            total_loss = content_loss + style_loss
            total_loss.backward()
            optimizer.step()
            agg_content_loss += content_loss.item()
            agg_style_loss += style_loss.item()
        print("epoch {}: content {:.6f} style {:.6f}".format(e + 1, agg_content_loss, agg_style_loss))
