import torch


class Model:
    """Architecture-agnostic base: subclasses implement create_model()."""

    def __init__(self, config):
        self.config = config
        self.check_model()

    def create_model(self):
        raise ValueError("The create_model class method needs to be implemented.")

    def check_model(self):
        test_model = self.create_model()
        test_model.eval()
        with torch.no_grad():
            predictions = test_model([torch.rand(3, 300, 400), torch.rand(3, 500, 400)])
        assert len(predictions) == 2
        assert sorted(predictions[1].keys()) == ["boxes", "labels", "scores"]
