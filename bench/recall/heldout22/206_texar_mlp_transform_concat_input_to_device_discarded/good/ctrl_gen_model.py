import torch
from torch import nn

from connectors import MLPTransformConnector


class CtrlGenModel(nn.Module):
    """Text style transfer: an encoder, a label-conditioned decoder initial state and a style classifier."""

    def __init__(self, vocab_size=10000, emb_dim=100, dim_c=200, num_units=700, device=None):
        super().__init__()
        self.embedder = nn.Embedding(vocab_size, emb_dim)
        self.encoder = nn.GRU(emb_dim, num_units, batch_first=True)
        self.label_connector = MLPTransformConnector(dim_c, linear_layer_dim=1, device=device)
        self.connector = MLPTransformConnector(num_units, linear_layer_dim=num_units, device=device)
        self.decoder = nn.GRU(emb_dim, num_units, batch_first=True)
        self.output_layer = nn.Linear(num_units, vocab_size)
        self.dim_c = dim_c

    def forward(self, text_ids, labels):
        _, final_state = self.encoder(self.embedder(text_ids))
        z = final_state[0][:, self.dim_c:]
        c = self.label_connector(labels.float().view(-1, 1))
        h = self.connector(torch.cat([c, z], dim=1))
        outputs, _ = self.decoder(self.embedder(text_ids[:, :-1]), h.unsqueeze(0))
        logits = self.output_layer(outputs)
        return nn.functional.cross_entropy(logits.flatten(0, 1), text_ids[:, 1:].flatten())


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CtrlGenModel(device=device).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    for step in range(100):
        text = torch.randint(0, 10000, (64, 20), device=device)
        labels = torch.randint(0, 2, (64,), device=device)
        loss = model(text, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
