import logging
from pathlib import Path

import ignite.distributed as idist
import torch
from ignite.engine import Engine, Events
from ignite.handlers import Checkpoint, DiskSaver, global_step_from_engine

logger = logging.getLogger(__name__)


def create_engine(model: torch.nn.Module, device: torch.device) -> Engine:
    def train_step(engine, batch):
        inputs, targets = (t.to(device) for t in batch)
        return model.train_step((inputs, targets))

    return Engine(train_step)


def create_trainer(model: torch.nn.Module, config: dict, results_directory: Path) -> Engine:
    """Build the ignite trainer, its checkpoint handlers and, if asked, resume from a checkpoint."""
    device = idist.device()
    model.train()
    model = idist.auto_model(model)
    trainer = create_engine(model, device)
    optimizer = model.optimizer

    to_save = {"model": model, "optimizer": optimizer, "trainer": trainer}

    latest_checkpoint = Checkpoint(
        to_save,
        DiskSaver(results_directory, require_empty=False),
        n_saved=1,
        global_step_transform=global_step_from_engine(trainer, Events.EPOCH_COMPLETED),
        filename_pattern="{name}_epoch_{global_step}.{ext}",
    )

    if config["train"]["resume"]:
        prev_checkpoint = torch.load(config["train"]["resume"], map_location=device)  # expect: TCK401
        Checkpoint.load_objects(to_load=to_save, checkpoint=prev_checkpoint)

    @trainer.on(Events.EPOCH_COMPLETED)
    def log_epoch(engine):
        logger.info(f"epoch {engine.state.epoch}: {engine.state.output}")

    trainer.add_event_handler(Events.EPOCH_COMPLETED, latest_checkpoint)
    return trainer
