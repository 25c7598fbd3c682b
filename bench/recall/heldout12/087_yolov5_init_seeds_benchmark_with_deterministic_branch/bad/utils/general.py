import os
import random

import numpy as np
import torch
from packaging import version


def check_version(current, minimum):
    return version.parse(current.split("+")[0]) >= version.parse(minimum)


def init_seeds(seed=0, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.benchmark = True  # expect: TCK501
    if deterministic and check_version(torch.__version__, "1.12.0"):
        torch.use_deterministic_algorithms(True)
        torch.backends.cudnn.deterministic = True
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
        os.environ["PYTHONHASHSEED"] = str(seed)
