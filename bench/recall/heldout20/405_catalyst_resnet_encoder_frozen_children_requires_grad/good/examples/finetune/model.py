import torch
import torch.nn as nn

from catalyst.contrib.models import ResnetEncoder

MODELS = {}


def register_model(fn):
    MODELS[fn.__name__] = fn
    return fn


class MiniNet(nn.Module):
    def __init__(self, enc, n_cls, emb_size, dropout=0.2):
        super().__init__()
        self.encoder = enc
        self.emb_net = nn.Sequential(
            nn.Linear(enc.out_features, emb_size), nn.ReLU(inplace=True), nn.Dropout(dropout)
        )
        self.head = nn.Linear(emb_size, n_cls, bias=True)

    def forward(self, image):
        embeddings = self.emb_net(self.encoder(image))
        return embeddings, self.head(embeddings)


@register_model
def baseline(encoder_params, head_params):
    return MiniNet(enc=ResnetEncoder(**encoder_params), **head_params)


def train_head(config, loader, epochs=1):
    model = MODELS[config["model"]](config["encoder_params"], config["head_params"])
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(trainable, lr=config.get("lr", 1e-3))
    criterion = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        for images, targets in loader:
            _, logits = model(images)
            loss = criterion(logits, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model
