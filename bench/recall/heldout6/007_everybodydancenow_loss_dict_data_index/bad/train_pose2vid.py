import torch


def train(model, dataset, optimizer_G, optimizer_D, visualizer, epoch):
    for i, data in enumerate(dataset):
        losses, generated = model(data["label"], data["image"], infer=False)
        losses = [torch.mean(x) if not isinstance(x, int) else x for x in losses]
        loss_dict = dict(zip(model.loss_names, losses))
        loss_D = (loss_dict["D_fake"] + loss_dict["D_real"]) * 0.5
        loss_G = loss_dict["G_GAN"] + loss_dict["G_GAN_Feat"] + loss_dict["G_VGG"]
        optimizer_G.zero_grad()
        loss_G.backward()
        optimizer_G.step()
        optimizer_D.zero_grad()
        loss_D.backward()
        optimizer_D.step()
        errors = {k: v.data[0] if not isinstance(v, int) else v for k, v in loss_dict.items()}  # expect: TCK115
        visualizer.print_current_errors(epoch, i, errors)
