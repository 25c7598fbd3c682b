"""Top-level AlphaFold3 module (trunk, diffusion module and heads elided) with versioned save/load."""
from importlib.metadata import version
from pathlib import Path

import torch
from loguru import logger
from torch.nn import Module

from .modules import ConfidenceHead, DiffusionModule, DistogramHead, InputEmbedder, PairformerStack


class Alphafold3(Module):
    def __init__(self, *args, dim_single=384, dim_pairwise=128, num_pairformer_blocks=48, **kwargs):
        super().__init__()
        self._version = version("alphafold3_pytorch")
        self._args_and_kwargs = (args, dict(dim_single=dim_single, dim_pairwise=dim_pairwise,
                                            num_pairformer_blocks=num_pairformer_blocks, **kwargs))
        self.input_embedder = InputEmbedder(dim_single=dim_single, dim_pairwise=dim_pairwise)
        self.pairformer = PairformerStack(dim_single=dim_single, dim_pairwise=dim_pairwise, depth=num_pairformer_blocks)
        self.diffusion_module = DiffusionModule(dim_single=dim_single, dim_pairwise=dim_pairwise)
        self.distogram_head = DistogramHead(dim_pairwise=dim_pairwise)
        self.confidence_head = ConfidenceHead(dim_single=dim_single, dim_pairwise=dim_pairwise)
        self.register_buffer("zero", torch.tensor(0.0), persistent=False)

    @property
    def device(self):
        return self.zero.device

    @property
    def state_dict_with_init_args(self):
        return dict(version=self._version, init_args_and_kwargs=self._args_and_kwargs, state_dict=self.state_dict())

    def save(self, path, overwrite=False):
        path = Path(path)
        assert not path.is_dir() and (not path.exists() or overwrite)
        path.parent.mkdir(exist_ok=True, parents=True)
        torch.save(dict(model=self.state_dict_with_init_args), str(path))

    def load(self, path, strict=False, map_location="cpu"):
        path = Path(path)
        assert path.exists() and path.is_file()
        package = torch.load(str(path), map_location=map_location)  # expect: TCK401
        model_package = package["model"]
        current_version = version("alphafold3_pytorch")
        if model_package["version"] != current_version:
            logger.warning(f"loading a saved model from version {model_package['version']} "
                           f"but you are on version {current_version}")
        self.load_state_dict(model_package["state_dict"], strict=strict)
        return package.get("id", None)

    @staticmethod
    def init_and_load(path, map_location="cpu"):
        path = Path(path)
        assert path.is_file()
        package = torch.load(str(path), map_location=map_location)  # expect: TCK401
        args, kwargs = package["model"]["init_args_and_kwargs"]
        alphafold3 = Alphafold3(*args, **kwargs)
        alphafold3.load(path)
        return alphafold3

    def forward(self, **inputs):
        single, pairwise = self.input_embedder(**inputs)
        single, pairwise = self.pairformer(single, pairwise)
        return self.diffusion_module(single, pairwise, **inputs)
