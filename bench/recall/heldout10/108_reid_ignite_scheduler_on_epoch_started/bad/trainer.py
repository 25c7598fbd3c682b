import logging

import torch
from ignite.engine import Engine, Events
from ignite.metrics import RunningAverage


def create_supervised_trainer(model, optimizer, loss_fn, device):
    model.to(device)

    def _update(engine, batch):
        model.train()
        optimizer.zero_grad()
        img, target = batch
        img = img.to(device)
        target = target.to(device)
        score, feat = model(img)
        loss = loss_fn(score, feat, target)
        loss.backward()
        optimizer.step()
        acc = (score.max(1)[1] == target).float().mean()
        return loss.item(), acc.item()

    return Engine(_update)


def do_train(model, train_loader, optimizer, scheduler, loss_fn, device, epochs, log_period=20):
    logger = logging.getLogger("reid_baseline.train")
    trainer = create_supervised_trainer(model, optimizer, loss_fn, device)
    RunningAverage(output_transform=lambda x: x[0]).attach(trainer, "avg_loss")

    @trainer.on(Events.EPOCH_STARTED)
    def adjust_learning_rate(engine):
        scheduler.step()  # expect: TCK104

    @trainer.on(Events.ITERATION_COMPLETED)
    def log_training_loss(engine):
        it = (engine.state.iteration - 1) % len(train_loader) + 1
        if it % log_period == 0:
            logger.info("Epoch[%d] Iteration[%d/%d] Loss: %.3f, Lr: %.2e", engine.state.epoch, it,
                        len(train_loader), engine.state.metrics["avg_loss"], scheduler.get_last_lr()[0])

    trainer.run(train_loader, max_epochs=epochs)
