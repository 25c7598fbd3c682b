import torch


class BaseRunner:
    def __init__(self, config):
        self.config = config
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.weight_dtype = torch.bfloat16
        self.image_encoder = None

    def load_image_encoder(self):
        raise NotImplementedError

    def run_input_encoder(self):
        raise NotImplementedError

    @torch.inference_mode()
    def run_pipeline(self, image_path):
        self.image_encoder = self.load_image_encoder()
        inputs = self.run_input_encoder(image_path)
        return inputs
