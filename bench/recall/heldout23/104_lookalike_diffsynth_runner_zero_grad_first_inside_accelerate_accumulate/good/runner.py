import importlib

import torch
from accelerate import Accelerator
from tqdm import tqdm


def get_optimizer_class(customized_optimizer=None):
    if customized_optimizer is None:
        return torch.optim.AdamW
    module_name, class_name = customized_optimizer.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), class_name)


def launch_training_task(
    accelerator: Accelerator,
    dataset,
    model,
    model_logger,
    learning_rate=1e-5,
    weight_decay=1e-2,
    num_workers=1,
    save_steps=None,
    num_epochs=1,
    customized_optimizer=None,
):
    optimizer_class = get_optimizer_class(customized_optimizer)
    optimizer = optimizer_class(model.trainable_modules(), lr=learning_rate, weight_decay=weight_decay)
    scheduler = torch.optim.lr_scheduler.ConstantLR(optimizer)
    dataloader = torch.utils.data.DataLoader(dataset, shuffle=True, collate_fn=lambda x: x[0], num_workers=num_workers)

    model.to(device=accelerator.device)
    model, optimizer, dataloader, scheduler = accelerator.prepare(model, optimizer, dataloader, scheduler)

    for epoch_id in range(num_epochs):
        for data in tqdm(dataloader):
            # the prepared optimizer's zero_grad() and step() are no-ops until the last
            # micro-batch of the accumulation window
            with accelerator.accumulate(model):
                optimizer.zero_grad()
                if dataset.load_from_cache:
                    loss = model({}, inputs=data)
                else:
                    loss = model(data)
                accelerator.backward(loss)
                optimizer.step()
                model_logger.on_step_end(accelerator, model, save_steps, loss=loss)
                scheduler.step()
        if save_steps is None:
            model_logger.on_epoch_end(accelerator, model, epoch_id)
    model_logger.on_training_end(accelerator, model, save_steps)
