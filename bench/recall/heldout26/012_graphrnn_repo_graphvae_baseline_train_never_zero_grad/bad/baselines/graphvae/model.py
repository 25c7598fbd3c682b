import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP_VAE_plain(nn.Module):
    def __init__(self, h_size, embedding_size, y_size):
        super(MLP_VAE_plain, self).__init__()
        self.encode_11 = nn.Linear(h_size, embedding_size)  # mu
        self.encode_12 = nn.Linear(h_size, embedding_size)  # log sigma^2
        self.decode_1 = nn.Linear(embedding_size, embedding_size)
        self.decode_2 = nn.Linear(embedding_size, y_size)

    def forward(self, h):
        z_mu = self.encode_11(h)
        z_lsgms = self.encode_12(h)
        z = z_mu + torch.randn_like(z_mu) * z_lsgms.mul(0.5).exp()
        y = self.decode_2(F.relu(self.decode_1(z)))
        return y, z_mu, z_lsgms


class GraphVAE(nn.Module):
    """GraphVAE baseline: encode a padded adjacency matrix, decode its lower triangle, return the loss."""

    def __init__(self, input_dim, hidden_dim, latent_dim, max_num_nodes, pool="max"):
        super(GraphVAE, self).__init__()
        self.conv1 = nn.Linear(input_dim, hidden_dim)
        self.bn1 = nn.BatchNorm1d(input_dim)
        self.conv2 = nn.Linear(hidden_dim, hidden_dim)
        self.bn2 = nn.BatchNorm1d(input_dim)
        output_dim = max_num_nodes * (max_num_nodes + 1) // 2
        self.vae = MLP_VAE_plain(hidden_dim, latent_dim, output_dim)
        self.max_num_nodes = max_num_nodes
        self.pool = pool

    def recover_adj_lower(self, l):
        adj = torch.zeros(self.max_num_nodes, self.max_num_nodes, device=l.device)
        idx = torch.triu_indices(self.max_num_nodes, self.max_num_nodes, device=l.device)
        adj[idx[0], idx[1]] = l.view(-1)
        return adj

    def forward(self, input_features, adj):
        x = F.relu(self.bn1(self.conv1(adj @ input_features)))
        x = F.relu(self.bn2(self.conv2(adj @ x)))
        graph_h = x.max(dim=1)[0] if self.pool == "max" else x.sum(dim=1)
        h_decode, z_mu, z_lsgms = self.vae(graph_h)
        out = torch.sigmoid(h_decode)
        idx = torch.triu_indices(self.max_num_nodes, self.max_num_nodes, device=adj.device)
        adj_target = adj[:, idx[0], idx[1]]
        adj_recon_loss = F.binary_cross_entropy(out, adj_target)
        kl = -0.5 * torch.sum(1 + z_lsgms - z_mu.pow(2) - z_lsgms.exp())
        kl = kl / (self.max_num_nodes * self.max_num_nodes)
        return adj_recon_loss + kl
