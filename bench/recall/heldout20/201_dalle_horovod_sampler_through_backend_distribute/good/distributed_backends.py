import torch
import torch.distributed as dist


class DistributedBackend:
    BACKEND_NAME = None

    def initialize(self):
        raise NotImplementedError

    def is_root_worker(self):
        return self.get_rank() == 0

    def get_rank(self):
        raise NotImplementedError

    def get_world_size(self):
        raise NotImplementedError

    def check_batch_size(self, batch_size):
        assert batch_size >= self.get_world_size(), "batch size smaller than the number of workers"

    def distribute(self, args=None, model=None, optimizer=None, model_parameters=None,
                   training_data=None, lr_scheduler=None, **kwargs):
        raise NotImplementedError

    def average_all(self, tensor):
        raise NotImplementedError


class DummyBackend(DistributedBackend):
    BACKEND_NAME = "Dummy"

    def initialize(self):
        pass

    def get_rank(self):
        return 0

    def get_world_size(self):
        return 1

    def distribute(self, args=None, model=None, optimizer=None, model_parameters=None,
                   training_data=None, lr_scheduler=None, **kwargs):
        return model, optimizer, training_data, lr_scheduler

    def average_all(self, tensor):
        return tensor


class HorovodBackend(DistributedBackend):
    """Horovod-style data parallelism: one process per GPU, gradients averaged by the optimizer."""

    BACKEND_NAME = "Horovod"

    def initialize(self):
        import horovod.torch as hvd

        self.backend_module = hvd
        hvd.init()
        torch.cuda.set_device(hvd.local_rank())

    def get_rank(self):
        return self.backend_module.rank()

    def get_world_size(self):
        return self.backend_module.size()

    def distribute(self, args=None, model=None, optimizer=None, model_parameters=None,
                   training_data=None, lr_scheduler=None, **kwargs):
        hvd = self.backend_module
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        return model, optimizer, training_data, lr_scheduler

    def average_all(self, tensor):
        return self.backend_module.allreduce(tensor)


class TorchDistributedBackend(DistributedBackend):
    BACKEND_NAME = "TorchDistributed"

    def initialize(self):
        dist.init_process_group("nccl")

    def get_rank(self):
        return dist.get_rank()

    def get_world_size(self):
        return dist.get_world_size()

    def distribute(self, args=None, model=None, optimizer=None, model_parameters=None,
                   training_data=None, lr_scheduler=None, **kwargs):
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
        return model, optimizer, training_data, lr_scheduler

    def average_all(self, tensor):
        tensor = tensor.detach().clone()
        dist.all_reduce(tensor)
        return tensor / dist.get_world_size()


_BACKENDS = {b.BACKEND_NAME: b for b in (DummyBackend, HorovodBackend, TorchDistributedBackend)}
backend = None


def set_backend_from_args(args):
    global backend
    backend = _BACKENDS[args.distributed_backend]()
    return backend


def using_backend(backend_class):
    return isinstance(backend, backend_class)
