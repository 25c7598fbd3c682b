"""Build the default C.Origami model and restore it from a training checkpoint."""
import torch

import corigami.model.corigami_models as corigami_models


def load_default(model_path):
    model = get_model("ConvTransModel", mid_hidden=256)
    load_checkpoint(model, model_path)
    return model


def get_model(model_name, mid_hidden, num_genomic_features=2):
    model_class = getattr(corigami_models, model_name)
    return model_class(num_genomic_features, mid_hidden=mid_hidden)


def load_checkpoint(model, model_path):
    print("Loading weights")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    # a Lightning checkpoint: besides the weights it pickles the hyper-parameters and loop state
    checkpoint = torch.load(model_path, map_location=device, weights_only=False)
    model_weights = checkpoint["state_dict"]
    # the Lightning module stored the network as `self.model`: drop that prefix
    for key in list(model_weights):
        model_weights[key.replace("model.", "")] = model_weights.pop(key)
    model.load_state_dict(model_weights)
    model.eval()
    return model
