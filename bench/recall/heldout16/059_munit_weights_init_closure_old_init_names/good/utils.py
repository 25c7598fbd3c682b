import math

from torch.nn import init
from torch.optim import lr_scheduler


def weights_init(init_type="gaussian"):
    def init_fun(m):
        classname = m.__class__.__name__
        if (classname.find("Conv") == 0 or classname.find("Linear") == 0) and hasattr(m, "weight"):
            if init_type == "gaussian":
                init.normal_(m.weight.data, 0.0, 0.02)
            elif init_type == "xavier":
                init.xavier_normal_(m.weight.data, gain=math.sqrt(2))
            elif init_type == "kaiming":
                init.kaiming_normal_(m.weight.data, a=0, mode="fan_in")
            elif init_type == "orthogonal":
                init.orthogonal_(m.weight.data, gain=math.sqrt(2))
            elif init_type == "default":
                pass
            else:
                raise ValueError(f"Unsupported initialization: {init_type}")
            if hasattr(m, "bias") and m.bias is not None:
                init.constant_(m.bias.data, 0.0)

    return init_fun


def get_scheduler(optimizer, hyperparameters, iterations=-1):
    if hyperparameters.get("lr_policy", "constant") == "constant":
        return None
    return lr_scheduler.StepLR(optimizer, step_size=hyperparameters["step_size"],
                               gamma=hyperparameters["gamma"], last_epoch=iterations)
