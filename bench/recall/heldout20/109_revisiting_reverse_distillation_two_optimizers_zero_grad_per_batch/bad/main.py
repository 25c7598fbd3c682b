import torch

from rd_modules import Bottleneck, Decoder, Encoder, MultiProjectionLayer, ProjectionContrastLoss, distill_loss


def train(train_dataloader, device, num_epoch=200, proj_lr=1e-3, distill_lr=5e-3, weight_proj=0.2):
    encoder = Encoder().to(device)
    encoder.eval()
    bn = Bottleneck().to(device)
    decoder = Decoder().to(device)
    proj_layer = MultiProjectionLayer().to(device)
    proj_loss = ProjectionContrastLoss()
    optimizer_proj = torch.optim.Adam(list(proj_layer.parameters()), lr=proj_lr, betas=(0.5, 0.999))
    optimizer_distill = torch.optim.Adam(list(decoder.parameters()) + list(bn.parameters()), lr=distill_lr,
                                         betas=(0.5, 0.999))
    history = []
    for epoch in range(1, num_epoch + 1):
        bn.train()
        proj_layer.train()
        decoder.train()
        total_loss_running = 0.0
        accumulation_steps = 2
        for i, (img, img_noise, _) in enumerate(train_dataloader):
            img, img_noise = img.to(device), img_noise.to(device)
            with torch.no_grad():
                inputs = encoder(img)
                inputs_noise = encoder(img_noise)
            feature_space_noise, feature_space = proj_layer(inputs, features_noise=inputs_noise)
            L_proj = proj_loss(inputs_noise, feature_space_noise, feature_space)
            outputs = decoder(bn(feature_space), [f.shape[-2:] for f in inputs])
            L_distill = distill_loss(inputs, outputs)
            loss = L_distill + weight_proj * L_proj
            optimizer_proj.zero_grad()  # expect: TCK111
            optimizer_distill.zero_grad()  # expect: TCK111
            loss.backward()
            if (i + 1) % accumulation_steps == 0:
                optimizer_proj.step()
                optimizer_distill.step()
            total_loss_running += loss.detach().cpu().item()
        history.append(total_loss_running)
        print(f"epoch {epoch}: loss {total_loss_running:.4f}")
    return encoder, proj_layer, bn, decoder, history
