from .intern_vit_6b import InternViT6B


def build_model(config):
    model_type = config["MODEL"]["TYPE"]
    if model_type == "intern_vit_6b":
        return InternViT6B(**config["MODEL"]["INTERN_VIT_6B"], num_classes=config["MODEL"]["NUM_CLASSES"])
    raise NotImplementedError(f"Unknown model: {model_type}")
