from torch import nn


class SNLINet(nn.Module):
    def __init__(self, options):
        super().__init__()
        self.embed = nn.Embedding(options["n_words"], options["n_hid"])
        self.hids = []  # expect: TCK601
        for _ in range(options["n_layers"]):
            self.hids.append([nn.Linear(options["n_hid"], options["n_hid"]), getattr(nn, options["act"])()])
        self.classifier = nn.Linear(options["n_hid"], 3)

    def forward(self, tokens):
        h = self.embed(tokens).mean(dim=1)
        for linear, act in self.hids:
            h = act(linear(h))
        return self.classifier(h)
