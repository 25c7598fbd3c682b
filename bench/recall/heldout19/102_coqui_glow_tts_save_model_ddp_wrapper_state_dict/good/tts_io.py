import datetime
import os

import torch


def load_checkpoint(model, checkpoint_path, use_cuda=False):
    state = torch.load(checkpoint_path, map_location=torch.device("cpu"))
    model.load_state_dict(state["model"])
    if use_cuda:
        model.cuda()
    return model, state


def save_model(model, optimizer, current_step, epoch, output_path, **kwargs):
    if hasattr(model, "module"):
        model_state = model.module.state_dict()
    else:
        model_state = model.state_dict()
    state = {
        "model": model_state,
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "step": current_step,
        "epoch": epoch,
        "date": datetime.date.today().strftime("%B %d, %Y"),
    }
    state.update(kwargs)
    torch.save(state, output_path)


def save_checkpoint(model, optimizer, current_step, epoch, output_folder, **kwargs):
    checkpoint_path = os.path.join(output_folder, "checkpoint_{}.pth.tar".format(current_step))
    print(" > CHECKPOINT : {}".format(checkpoint_path))
    save_model(model, optimizer, current_step, epoch, checkpoint_path, **kwargs)


def save_best_model(target_loss, best_loss, model, optimizer, current_step, epoch, output_folder):
    if target_loss < best_loss:
        checkpoint_path = os.path.join(output_folder, "best_model.pth.tar")
        print(" >> BEST MODEL : {}".format(checkpoint_path))
        save_model(model, optimizer, current_step, epoch, checkpoint_path, model_loss=target_loss)
        best_loss = target_loss
    return best_loss
