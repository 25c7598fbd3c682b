import torch
import torch.nn as nn

from utils import idx2onehot


class VAE(nn.Module):
    def __init__(self, encoder_layer_sizes, latent_size, decoder_layer_sizes, conditional=False, num_labels=0):
        super().__init__()
        if conditional:
            assert num_labels > 0
        self.latent_size = latent_size
        self.encoder = Encoder(encoder_layer_sizes, latent_size, conditional, num_labels)
        self.decoder = Decoder(decoder_layer_sizes, latent_size, conditional, num_labels)

    def forward(self, x, c=None):
        means, log_var = self.encoder(x, c)
        std = torch.exp(0.5 * log_var)
        eps = torch.randn_like(std)
        z = eps * std + means
        return self.decoder(z, c), means, log_var, z

    def inference(self, n=1, c=None):
        z = torch.randn(n, self.latent_size, device=next(self.parameters()).device)
        return self.decoder(z, c)


class Encoder(nn.Module):
    def __init__(self, layer_sizes, latent_size, conditional, num_labels):
        super().__init__()
        self.conditional = conditional
        layer_sizes = list(layer_sizes)
        if conditional:
            layer_sizes[0] += num_labels
        self.MLP = nn.Sequential()
        for i, (in_size, out_size) in enumerate(zip(layer_sizes[:-1], layer_sizes[1:])):
            self.MLP.add_module(name="L%i" % i, module=nn.Linear(in_size, out_size))
            self.MLP.add_module(name="A%i" % i, module=nn.ReLU())
        self.linear_means = nn.Linear(layer_sizes[-1], latent_size)
        self.linear_log_var = nn.Linear(layer_sizes[-1], latent_size)

    def forward(self, x, c=None):
        if self.conditional:
            x = torch.cat((x, idx2onehot(c, n=10)), dim=-1)
        x = self.MLP(x)
        return self.linear_means(x), self.linear_log_var(x)


class Decoder(nn.Module):
    def __init__(self, layer_sizes, latent_size, conditional, num_labels):
        super().__init__()
        self.conditional = conditional
        input_size = latent_size + num_labels if conditional else latent_size
        self.MLP = nn.Sequential()
        for i, (in_size, out_size) in enumerate(zip([input_size] + layer_sizes[:-1], layer_sizes)):
            self.MLP.add_module(name="L%i" % i, module=nn.Linear(in_size, out_size))
            if i + 1 < len(layer_sizes):
                self.MLP.add_module(name="A%i" % i, module=nn.ReLU())
            else:
                self.MLP.add_module(name="sigmoid", module=nn.Sigmoid())

    def forward(self, z, c):
        if self.conditional:
            z = torch.cat((z, idx2onehot(c, n=10)), dim=-1)
        return self.MLP(z)
