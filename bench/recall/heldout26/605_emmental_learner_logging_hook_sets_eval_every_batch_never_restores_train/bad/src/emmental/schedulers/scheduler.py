class Scheduler(object):
    """Decides in which order the batches of several task dataloaders are visited."""

    def __init__(self):
        pass

    def get_batches(self, dataloaders):
        raise NotImplementedError()
