# The project's own spelling of torch.nn: every layer derives from this Module, so that a
# profiling / logging child class can be slotted in later without touching the layers.
import torch.nn


class Module(torch.nn.Module):
    def __init__(self, *args, **kwargs):
        super(Module, self).__init__(*args, **kwargs)


Parameter = torch.nn.Parameter  # a tensor subclass, re-exported as is


class ModuleList(torch.nn.ModuleList, Module):
    pass


class Sequential(torch.nn.Sequential, Module):
    pass


class Linear(torch.nn.Linear, Module):
    pass


class ReLU(torch.nn.ReLU, Module):
    pass


class LayerNorm(torch.nn.LayerNorm, Module):
    pass


class Embedding(torch.nn.Embedding, Module):
    pass
