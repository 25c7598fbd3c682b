import torch


def segment(pl_model, new_data, sw_batch_size=4, sw_window_size=160, test_time_augmentation=True):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    pl_model.to(device)
    pl_model.eval()
    predictions = torch.zeros_like(new_data)
    with torch.no_grad():
        with torch.cuda.amp.autocast():  # expect: TCK301
            for flip in ([], [2], [3], [4]) if test_time_augmentation else ([],):
                x = torch.flip(new_data, flip) if flip else new_data
                out = pl_model(x.to(device))
                out = torch.flip(out, flip) if flip else out
                predictions += out.float().cpu()
    return predictions / (4 if test_time_augmentation else 1)
