from torch import nn


class CustomDataParallel(nn.DataParallel):
    def __init__(self, module, num_gpus):
        super().__init__(module)
        self.num_gpus = num_gpus

    def scatter(self, inputs, kwargs, device_ids):
        devices = ["cuda:" + str(x) for x in range(self.num_gpus)]
        splits = inputs[0].shape[0] // self.num_gpus
        return [(inputs[0][splits * i:splits * (i + 1)].to(devices[i], non_blocking=True),
                 inputs[1][splits * i:splits * (i + 1)].to(devices[i], non_blocking=True))
                for i in range(len(devices))], [kwargs] * len(devices)
