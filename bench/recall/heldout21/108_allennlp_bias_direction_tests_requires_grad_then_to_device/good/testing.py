import pytest
import torch

_available_devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def multi_device(test_method):
    """Runs the test once per available PyTorch device, passing it as `device`."""
    return pytest.mark.parametrize("device", _available_devices)(pytest.mark.gpu(test_method))
