"""Base class of all models: registers subclasses by name and records their init arguments,
so that a trained model can be saved and rebuilt together with its configuration."""
import inspect
import warnings
from pathlib import Path

import torch


class BaseModel(torch.nn.Module):
    _models = dict()
    _version = "0.1.0"

    def __init_subclass__(cls, name=None, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._name = name if name is not None else cls.__name__
        BaseModel._models[cls._name.lower()] = cls

    def __new__(cls, *args, **kwargs):
        # record every init argument (defaults included) to rebuild the instance later
        sig = inspect.signature(cls)
        for key, param in sig.parameters.items():
            if param.default is not inspect.Parameter.empty and key not in kwargs:
                kwargs[key] = param.default
        kwargs["_version"] = cls._version
        kwargs["args"] = args
        kwargs["_name"] = cls._name
        instance = super().__new__(cls)
        instance._init_kwargs = kwargs
        return instance

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        state_dict = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        if state_dict.get("_metadata") is None:
            state_dict["_metadata"] = self._init_kwargs
        return state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        metadata = state_dict.pop("_metadata", None)
        if metadata is not None and metadata.get("_version") != self._version:
            warnings.warn(f"Loading a {self.__class__.__name__} saved at version {metadata.get('_version')}, "
                          f"current version is {self._version}")
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def save_checkpoint(self, save_folder, save_name):
        save_folder = Path(save_folder)
        save_folder.mkdir(parents=True, exist_ok=True)
        torch.save(self.state_dict(), save_folder.joinpath(f"{save_name}_state_dict.pt").as_posix())
        # objects such as the activation function are not JSON serializable
        torch.save(self._init_kwargs, save_folder.joinpath(f"{save_name}_metadata.pkl").as_posix())

    def load_checkpoint(self, save_folder, save_name, map_location=None):
        state_dict_filepath = Path(save_folder).joinpath(f"{save_name}_state_dict.pt").as_posix()
        self.load_state_dict(torch.load(state_dict_filepath, map_location=map_location))  # expect: TCK401

    @classmethod
    def from_checkpoint(cls, save_folder, save_name, map_location=None):
        metadata_filepath = Path(save_folder).joinpath(f"{save_name}_metadata.pkl").as_posix()
        init_kwargs = torch.load(metadata_filepath)  # expect: TCK401

        version = init_kwargs.pop("_version")
        if version != cls._version:
            warnings.warn(f"Checkpoint saved for version {version} of {cls._name}, code is version {cls._version}")
        init_kwargs.pop("_name", None)
        init_args = init_kwargs.pop("args", [])
        instance = cls(*init_args, **init_kwargs)
        instance.load_checkpoint(save_folder, save_name, map_location=map_location)
        return instance


def available_models():
    return list(BaseModel._models.keys())
