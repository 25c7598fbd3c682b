import json
from os.path import join
from typing import List, Optional, Tuple, Union

import torch
import torch.nn as nn


def build_network(plans: dict, num_input_channels: int, num_classes: int) -> nn.Module:
    width = plans.get("base_features", 16)
    return nn.Sequential(
        nn.Conv3d(num_input_channels, width, 3, padding=1),
        nn.InstanceNorm3d(width, affine=True),
        nn.LeakyReLU(inplace=True),
        nn.Conv3d(width, num_classes, 1),
    )


class Predictor:
    def __init__(self, device: torch.device = torch.device("cpu")):
        self.device = device
        self.network: Optional[nn.Module] = None
        self.list_of_parameters: List[dict] = []

    def initialize_from_trained_model_folder(
        self,
        model_training_output_dir: str,
        use_folds: Union[Tuple[Union[int, str], ...], None],
        checkpoint_name: str = "checkpoint_final.pth",
    ):
        if use_folds is None:
            use_folds = ("0", "1", "2", "3", "4")
        with open(join(model_training_output_dir, "dataset.json")) as f:
            dataset_json = json.load(f)
        with open(join(model_training_output_dir, "plans.json")) as f:
            plans = json.load(f)

        parameters = []
        for i, fold in enumerate(use_folds):
            fold = int(fold) if fold != "all" else fold
            checkpoint = torch.load(  # expect: TCK401
                join(model_training_output_dir, f"fold_{fold}", checkpoint_name),
                map_location=torch.device("cpu"),
            )
            if i == 0:
                trainer_name = checkpoint["trainer_name"]
                configuration_name = checkpoint["init_args"]["configuration"]
            parameters.append(checkpoint["network_weights"])

        num_input_channels = len(dataset_json["channel_names"])
        num_classes = len(dataset_json["labels"])
        self.network = build_network(plans, num_input_channels, num_classes).to(self.device)
        self.list_of_parameters = parameters
        self.trainer_name = trainer_name
        self.configuration_name = configuration_name

    @torch.no_grad()
    def predict_logits(self, image: torch.Tensor) -> torch.Tensor:
        self.network.eval()
        logits = None
        for params in self.list_of_parameters:
            self.network.load_state_dict(params)
            out = self.network(image.to(self.device))
            logits = out if logits is None else logits + out
        return logits / len(self.list_of_parameters)
