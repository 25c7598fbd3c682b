import torch
import torchvision.models as models


class Img2Vec:
    def __init__(self, cuda=False, model="resnet-18", layer="default"):
        self.device = torch.device("cuda" if cuda else "cpu")
        self.model_name = model
        self.model, self.extraction_layer = self._get_model_and_layer(model, layer)
        self.model = self.model.to(self.device)
        self.model.eval()

    def _get_model_and_layer(self, model_name, layer):
        if model_name == "resnet-18":
            model = models.resnet18(weights=models.ResNet18_Weights.DEFAULT)
            return model, model._modules.get("avgpool")
        elif model_name == "alexnet":
            model = models.alexnet(weights=models.AlexNet_Weights.DEFAULT)
            return model, model.classifier[-2]
        raise KeyError("Model %s was not found" % model_name)
