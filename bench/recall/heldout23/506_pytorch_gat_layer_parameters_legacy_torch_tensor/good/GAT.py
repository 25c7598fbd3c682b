import enum

import torch
import torch.nn as nn


class LayerType(enum.Enum):
    IMP1 = 0
    IMP3 = 2


class GATLayer(nn.Module):
    """Shared parameters of the GAT layer implementations; subclasses define the forward pass."""

    head_dim = 1

    def __init__(self, num_in_features, num_out_features, num_of_heads, layer_type, concat=True,
                 activation=nn.ELU(), dropout_prob=0.6, add_skip_connection=True, bias=True):
        super().__init__()
        self.num_of_heads = num_of_heads
        self.num_out_features = num_out_features
        self.concat = concat
        self.add_skip_connection = add_skip_connection

        if layer_type == LayerType.IMP1:
            self.proj_param = nn.Parameter(torch.empty(num_of_heads, num_in_features, num_out_features))
        else:
            self.linear_proj = nn.Linear(num_in_features, num_of_heads * num_out_features, bias=False)

        # additive attention "a", split into the part applied to the target and to the source node
        self.scoring_fn_target = nn.Parameter(torch.empty(1, num_of_heads, num_out_features))
        self.scoring_fn_source = nn.Parameter(torch.empty(1, num_of_heads, num_out_features))

        if bias and concat:
            self.bias = nn.Parameter(torch.empty(num_of_heads * num_out_features))
        elif bias and not concat:
            self.bias = nn.Parameter(torch.empty(num_out_features))
        else:
            self.register_parameter("bias", None)

        if add_skip_connection:
            self.skip_proj = nn.Linear(num_in_features, num_of_heads * num_out_features, bias=False)
        else:
            self.register_parameter("skip_proj", None)

        self.leakyReLU = nn.LeakyReLU(0.2)
        self.activation = activation
        self.dropout = nn.Dropout(p=dropout_prob)
        self.init_params(layer_type)

    def init_params(self, layer_type):
        nn.init.xavier_uniform_(self.proj_param if layer_type == LayerType.IMP1 else self.linear_proj.weight)
        nn.init.xavier_uniform_(self.scoring_fn_target)
        nn.init.xavier_uniform_(self.scoring_fn_source)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def skip_concat_bias(self, in_nodes_features, out_nodes_features):
        if self.add_skip_connection:
            skip = self.skip_proj(in_nodes_features).view(-1, self.num_of_heads, self.num_out_features)
            out_nodes_features = out_nodes_features + skip
        if self.concat:
            out_nodes_features = out_nodes_features.reshape(-1, self.num_of_heads * self.num_out_features)
        else:
            out_nodes_features = out_nodes_features.mean(dim=self.head_dim)
        if self.bias is not None:
            out_nodes_features = out_nodes_features + self.bias
        return out_nodes_features if self.activation is None else self.activation(out_nodes_features)


class GATLayerImp3(GATLayer):
    """Edge-list implementation: scores are computed per edge and normalized per target node."""

    def __init__(self, num_in_features, num_out_features, num_of_heads, **kwargs):
        super().__init__(num_in_features, num_out_features, num_of_heads, LayerType.IMP3, **kwargs)

    def forward(self, data):
        in_nodes_features, edge_index = data
        num_of_nodes = in_nodes_features.shape[0]
        x = self.dropout(in_nodes_features)
        proj = self.linear_proj(x).view(-1, self.num_of_heads, self.num_out_features)
        proj = self.dropout(proj)

        scores_source = (proj * self.scoring_fn_source).sum(dim=-1)
        scores_target = (proj * self.scoring_fn_target).sum(dim=-1)
        src, trg = edge_index[0], edge_index[1]
        scores_per_edge = self.leakyReLU(scores_source[src] + scores_target[trg])
        scores_per_edge = (scores_per_edge - scores_per_edge.max()).exp()

        denom = torch.zeros(num_of_nodes, self.num_of_heads, device=x.device, dtype=scores_per_edge.dtype)
        denom = denom.index_add(0, trg, scores_per_edge)
        attention = self.dropout((scores_per_edge / (denom[trg] + 1e-16)).unsqueeze(-1))

        out = torch.zeros(num_of_nodes, self.num_of_heads, self.num_out_features, device=x.device, dtype=proj.dtype)
        out = out.index_add(0, trg, proj[src] * attention)
        return self.skip_concat_bias(in_nodes_features, out), edge_index


class GAT(nn.Module):
    def __init__(self, num_of_layers, num_heads_per_layer, num_features_per_layer, dropout=0.6):
        super().__init__()
        heads = [1] + num_heads_per_layer
        layers = []
        for i in range(num_of_layers):
            last = i == num_of_layers - 1
            layers.append(GATLayerImp3(
                num_features_per_layer[i] * heads[i], num_features_per_layer[i + 1], heads[i + 1],
                concat=not last, activation=None if last else nn.ELU(), dropout_prob=dropout,
            ))
        self.gat_net = nn.Sequential(*layers)

    def forward(self, data):
        return self.gat_net(data)
