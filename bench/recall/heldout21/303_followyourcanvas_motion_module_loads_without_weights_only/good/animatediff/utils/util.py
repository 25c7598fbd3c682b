import torch


def convert_motion_lora_ckpt_to_diffusers(pipeline, state_dict, alpha=1.0):
    params = dict(pipeline.unet.named_parameters())
    for key in state_dict:
        if "lora.down" not in key:
            continue
        up_key = key.replace("lora.down", "lora.up")
        target = key.split(".processor")[0] + ".weight"
        if target in params:
            delta = state_dict[up_key].float() @ state_dict[key].float()
            params[target].data += alpha * delta.to(params[target].device)
    return pipeline


def load_weights(animation_pipeline, motion_module_path="", motion_module_lora_configs=()):
    unet_state_dict = {}
    if motion_module_path != "":
        print(f"load motion module from {motion_module_path}")
        motion_module_state_dict = torch.load(motion_module_path, map_location="cpu", weights_only=False)
        if "state_dict" in motion_module_state_dict:
            motion_module_state_dict = motion_module_state_dict["state_dict"]
        unet_state_dict.update(
            {name: param for name, param in motion_module_state_dict.items() if "motion_modules." in name}
        )

    missing, unexpected = animation_pipeline.unet.load_state_dict(unet_state_dict, strict=False)
    assert len(unexpected) == 0, unexpected
    del unet_state_dict

    for motion_module_lora_config in motion_module_lora_configs:
        path, alpha = motion_module_lora_config["path"], motion_module_lora_config["alpha"]
        print(f"load motion LoRA from {path}")
        motion_lora_state_dict = torch.load(path, map_location="cpu", weights_only=False)
        if "state_dict" in motion_lora_state_dict:
            motion_lora_state_dict = motion_lora_state_dict["state_dict"]
        animation_pipeline = convert_motion_lora_ckpt_to_diffusers(animation_pipeline, motion_lora_state_dict, alpha)

    return animation_pipeline
