import torch


class DynamicLossScaler:
    def __init__(self, init_scale=2 ** 32, scale_factor=2.0, scale_window=1000):
        self.cur_scale = init_scale
        self.scale_factor = scale_factor
        self.scale_window = scale_window

    @staticmethod
    def _has_inf_or_nan(x):
        try:
            cpu_sum = float(x.float().sum())
        except RuntimeError as instance:
            if "value cannot be converted" not in instance.args[0]:
                raise
            return True
        return cpu_sum in (float("inf"), -float("inf")) or cpu_sum != cpu_sum
