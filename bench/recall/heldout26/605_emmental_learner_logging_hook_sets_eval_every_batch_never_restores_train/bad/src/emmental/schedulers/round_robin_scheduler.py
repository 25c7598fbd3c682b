from emmental.schedulers.scheduler import Scheduler


class RoundRobinScheduler(Scheduler):
    """One batch of each task in turn until every dataloader is exhausted."""

    def get_batches(self, dataloaders):
        iterators = [iter(dataloader) for dataloader in dataloaders]
        remaining = [len(dataloader) for dataloader in dataloaders]
        index = 0
        while sum(remaining) > 0:
            while remaining[index] == 0:
                index = (index + 1) % len(dataloaders)
            remaining[index] -= 1
            dataloader = dataloaders[index]
            yield dataloader.task_name, dataloader.data_name, dataloader.label_name, next(iterators[index])
            index = (index + 1) % len(dataloaders)
