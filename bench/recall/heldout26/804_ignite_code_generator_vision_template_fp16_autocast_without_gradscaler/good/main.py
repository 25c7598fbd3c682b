from typing import Any

import ignite.distributed as idist
from data import setup_data
from ignite.engine import Events
from ignite.handlers import PiecewiseLinear
from ignite.metrics import Accuracy, Loss
from ignite.utils import manual_seed
from models import setup_model
from torch import nn, optim
from trainers import setup_evaluator, setup_trainer


def run(local_rank: int, config: Any):
    rank = idist.get_rank()
    manual_seed(config.seed + rank)
    device = idist.device()

    dataloader_train, dataloader_eval = setup_data(config)

    # model, optimizer, loss function, device
    model = idist.auto_model(setup_model(config.model))
    optimizer = idist.auto_optim(optim.Adam(model.parameters(), lr=config.lr))
    loss_fn = nn.CrossEntropyLoss().to(device=device)
    milestones_values = [
        (0, 0.0),
        (len(dataloader_train), config.lr),
        (config.max_epochs * len(dataloader_train), 0.0),
    ]
    lr_scheduler = PiecewiseLinear(optimizer, "lr", milestones_values=milestones_values)

    trainer = setup_trainer(config, model, optimizer, loss_fn, device, dataloader_train.sampler)
    evaluator = setup_evaluator(config, model, device)
    Accuracy().attach(evaluator, "accuracy")
    Loss(loss_fn).attach(evaluator, "eval_loss")
    trainer.add_event_handler(Events.ITERATION_COMPLETED, lr_scheduler)

    @trainer.on(Events.EPOCH_COMPLETED(every=config.eval_epoch_interval))
    def _():
        evaluator.run(dataloader_eval, epoch_length=config.eval_epoch_length)

    trainer.run(dataloader_train, max_epochs=config.max_epochs, epoch_length=config.train_epoch_length)


def main(config):
    with idist.Parallel(config.backend) as p:
        p.run(run, config=config)
