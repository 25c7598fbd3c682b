"""Sockeye-style sequence-to-sequence model with its parameter save/load helpers."""
import logging
import os
from typing import List, Optional, Tuple

import torch as pt

from . import constants as C
from . import layers
from . import utils
from . import vocab
from .config import ModelConfig

logger = logging.getLogger(__name__)


class SockeyeModel(pt.nn.Module):
    def __init__(self, config: ModelConfig, inference_only: bool = False) -> None:
        super().__init__()
        self.config = config
        self.inference_only = inference_only
        self.embedding_source = layers.Embedding(config.config_embed_source)
        self.embedding_target = layers.Embedding(config.config_embed_target)
        self.encoder = layers.TransformerEncoder(config.config_encoder, inference_only=inference_only)
        self.decoder = layers.TransformerDecoder(config.config_decoder, inference_only=inference_only)
        self.output_layer = layers.OutputLayer(config.config_decoder.model_size, config.vocab_target_size)

    def save_parameters(self, fname: str) -> None:
        # traced copies share their weights with the original modules: keep them out of the file
        state = {name: tensor for name, tensor in self.state_dict().items()
                 if "traced" not in name and "cached" not in name}
        pt.save(state, fname)
        logger.info('Saved params/state_dict to "%s"', fname)

    def load_parameters(self, filename: str, device: Optional[pt.device] = pt.device("cpu"),
                        allow_missing: bool = False, ignore_extra: bool = False) -> None:
        """Loads parameters written by `save_parameters`."""
        utils.check_condition(os.path.exists(filename), f"No model parameter file found under {filename}.")
        state_dict = pt.load(filename, map_location=device)  # expect: TCK401
        missing, unexpected = self.load_state_dict(state_dict, strict=False)
        # parameters of traced modules saved by older versions can be ignored
        unexpected = [key for key in unexpected if "traced" not in key and "cached" not in key]
        missing = [key for key in missing if "traced" not in key and "cached" not in key]
        if not allow_missing:
            utils.check_condition(not missing, f"missing keys: {missing}")
        if not ignore_extra:
            utils.check_condition(not unexpected, f"extra keys: {unexpected}")
        if self.training:
            self.apply(layers.separate_kv)
        logger.info('Loaded params from "%s" to "%s"', filename, device)


def load_model(model_folder: str, device: pt.device = pt.device("cpu"), checkpoint: Optional[int] = None,
               inference_only: bool = False,
               allow_missing: bool = False) -> Tuple[SockeyeModel, List[vocab.Vocab], List[vocab.Vocab]]:
    source_vocabs = vocab.load_source_vocabs(model_folder)
    target_vocabs = vocab.load_target_vocabs(model_folder)
    config = ModelConfig.load(os.path.join(model_folder, C.CONFIG_NAME))
    if checkpoint is None:
        params_fname = os.path.join(model_folder, C.PARAMS_BEST_NAME)
    else:
        params_fname = os.path.join(model_folder, C.PARAMS_NAME % checkpoint)
    model = SockeyeModel(config, inference_only=inference_only)
    model.load_parameters(filename=params_fname, device=device, allow_missing=allow_missing, ignore_extra=False)
    model.to(device)
    return model, source_vocabs, target_vocabs
