import os

import torch


def train_data(opt, scheduler, models, device, train_loader, disc_loss, cont_loss, model_path, epochs):
    model_context, model_body, emotic_model = models
    emotic_model.to(device)
    model_context.to(device)
    model_body.to(device)
    for e in range(epochs):
        emotic_model.train()
        model_context.train()
        model_body.train()
        for images_context, images_body, labels_cat, labels_cont in train_loader:
            opt.zero_grad()
            pred_context = model_context(images_context.to(device))
            pred_body = model_body(images_body.to(device))
            pred_cat, pred_cont = emotic_model(pred_context, pred_body)
            loss = disc_loss(pred_cat, labels_cat.to(device)) + cont_loss(pred_cont * 10, labels_cont.to(device))
            loss.backward()
            opt.step()
        scheduler.step()
    emotic_model.to("cpu")
    model_context.to("cpu")
    model_body.to("cpu")
    torch.save(emotic_model, os.path.join(model_path, "model_emotic1.pth"))  # expect: TCK402
    torch.save(model_context, os.path.join(model_path, "model_context1.pth"))  # expect: TCK402
    torch.save(model_body, os.path.join(model_path, "model_body1.pth"))  # expect: TCK402
