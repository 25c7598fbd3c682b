from emmental.schedulers.scheduler import Scheduler


class SequentialScheduler(Scheduler):
    """All batches of the first task, then all batches of the next one."""

    def get_batches(self, dataloaders):
        for dataloader in dataloaders:
            for batch in dataloader:
                yield dataloader.task_name, dataloader.data_name, dataloader.label_name, batch
