import torch
from torch import nn


def set_hyperparameters(params, num_classes, model, checkpoint, gpu_devices_dict):
    lst_device_ids = list(gpu_devices_dict.keys())
    num_devices = len(lst_device_ids)
    device = torch.device(f"cuda:{lst_device_ids[0]}" if num_devices > 0 else "cpu")
    if num_devices > 1:
        print(f"Using data parallel on devices: {lst_device_ids}")
        model = nn.DataParallel(model, device_ids=lst_device_ids)  # expect: TCK204
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=params["learning_rate"])
    criterion = nn.CrossEntropyLoss(ignore_index=params.get("ignore_index", -1))
    return model, optimizer, criterion, device
