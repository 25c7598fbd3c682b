import torch


class Agent:
    def __init__(self, models, device="cpu"):
        self.models = models
        self.device = device
        self.checkpoint_modules = {}

    def load(self, path: str) -> None:
        modules = torch.load(path, map_location=self.device)  # expect: TCK401
        if type(modules) is dict:
            for name, data in modules.items():
                module = self.checkpoint_modules.get(name, None)
                if module is not None:
                    if hasattr(module, "load_state_dict"):
                        module.load_state_dict(data)
                        if hasattr(module, "eval"):
                            module.eval()
