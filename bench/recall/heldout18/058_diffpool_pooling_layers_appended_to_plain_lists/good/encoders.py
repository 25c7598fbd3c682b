import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import init


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim, add_self=False, normalize_embedding=False, dropout=0.0):
        super().__init__()
        self.add_self = add_self
        self.normalize_embedding = normalize_embedding
        self.dropout = nn.Dropout(dropout)
        self.weight = nn.Parameter(torch.empty(input_dim, output_dim))
        self.bias = nn.Parameter(torch.zeros(output_dim))

    def forward(self, x, adj):
        x = self.dropout(x)
        y = torch.matmul(adj, x)
        if self.add_self:
            y = y + x
        y = torch.matmul(y, self.weight) + self.bias
        if self.normalize_embedding:
            y = F.normalize(y, p=2, dim=2)
        return y


class GcnEncoderGraph(nn.Module):
    def __init__(self, input_dim, hidden_dim, embedding_dim, label_dim, num_layers, concat=True, dropout=0.0):
        super().__init__()
        self.concat = concat
        self.num_layers = num_layers
        self.act = nn.ReLU()
        self.conv_first, self.conv_block, self.conv_last = self.build_conv_layers(
            input_dim, hidden_dim, embedding_dim, num_layers, not concat, normalize=True, dropout=dropout
        )
        self.pred_input_dim = hidden_dim * (num_layers - 1) + embedding_dim if concat else embedding_dim
        self.pred_model = self.build_pred_layers(self.pred_input_dim, [], label_dim)

    def init_weights(self):
        for m in self.modules():
            if isinstance(m, GraphConv):
                init.xavier_uniform_(m.weight, gain=init.calculate_gain("relu"))

    def build_conv_layers(self, input_dim, hidden_dim, embedding_dim, num_layers, add_self, normalize=False, dropout=0.0):
        conv_first = GraphConv(input_dim, hidden_dim, add_self, normalize)
        conv_block = nn.ModuleList(
            GraphConv(hidden_dim, hidden_dim, add_self, normalize, dropout) for _ in range(num_layers - 2)
        )
        conv_last = GraphConv(hidden_dim, embedding_dim, add_self, normalize)
        return conv_first, conv_block, conv_last

    def build_pred_layers(self, pred_input_dim, pred_hidden_dims, label_dim):
        if not pred_hidden_dims:
            return nn.Linear(pred_input_dim, label_dim)
        layers = []
        for dim in pred_hidden_dims:
            layers += [nn.Linear(pred_input_dim, dim), self.act]
            pred_input_dim = dim
        layers.append(nn.Linear(pred_input_dim, label_dim))
        return nn.Sequential(*layers)

    def gcn_forward(self, x, adj, conv_first, conv_block, conv_last):
        x = self.act(conv_first(x, adj))
        outs = [x]
        for conv in conv_block:
            x = self.act(conv(x, adj))
            outs.append(x)
        outs.append(conv_last(x, adj))
        return torch.cat(outs, dim=2) if self.concat else outs[-1]


class SoftPoolingGcnEncoder(GcnEncoderGraph):
    def __init__(self, max_num_nodes, input_dim, hidden_dim, embedding_dim, label_dim, num_layers,
                 assign_hidden_dim, assign_ratio=0.25, num_pooling=2, dropout=0.0):
        super().__init__(input_dim, hidden_dim, embedding_dim, label_dim, num_layers, dropout=dropout)
        self.num_pooling = num_pooling

        self.conv_first_after_pool = nn.ModuleList()
        self.conv_block_after_pool = nn.ModuleList()
        self.conv_last_after_pool = nn.ModuleList()
        for _ in range(num_pooling):
            conv_first2, conv_block2, conv_last2 = self.build_conv_layers(
                self.pred_input_dim, hidden_dim, embedding_dim, num_layers, False, normalize=True, dropout=dropout
            )
            self.conv_first_after_pool.append(conv_first2)
            self.conv_block_after_pool.append(conv_block2)
            self.conv_last_after_pool.append(conv_last2)

        self.assign_conv_first_modules = nn.ModuleList()
        self.assign_conv_block_modules = nn.ModuleList()
        self.assign_conv_last_modules = nn.ModuleList()
        self.assign_pred_modules = nn.ModuleList()
        assign_input_dim = input_dim
        assign_dim = int(max_num_nodes * assign_ratio)
        for _ in range(num_pooling):
            assign_conv_first, assign_conv_block, assign_conv_last = self.build_conv_layers(
                assign_input_dim, assign_hidden_dim, assign_dim, num_layers, False, normalize=True
            )
            assign_pred = self.build_pred_layers(assign_hidden_dim * (num_layers - 1) + assign_dim, [], assign_dim)
            assign_input_dim = self.pred_input_dim
            assign_dim = int(assign_dim * assign_ratio)
            self.assign_conv_first_modules.append(assign_conv_first)
            self.assign_conv_block_modules.append(assign_conv_block)
            self.assign_conv_last_modules.append(assign_conv_last)
            self.assign_pred_modules.append(assign_pred)

        self.pred_model = self.build_pred_layers(self.pred_input_dim * (num_pooling + 1), [50], label_dim)
        self.init_weights()

    def forward(self, x, adj):
        embedding = self.gcn_forward(x, adj, self.conv_first, self.conv_block, self.conv_last)
        out_all = [embedding.max(dim=1)[0]]
        for i in range(self.num_pooling):
            assign = self.gcn_forward(
                x, adj, self.assign_conv_first_modules[i], self.assign_conv_block_modules[i],
                self.assign_conv_last_modules[i],
            )
            assign = torch.softmax(self.assign_pred_modules[i](assign), dim=-1)
            x = torch.matmul(assign.transpose(1, 2), embedding)
            adj = assign.transpose(1, 2) @ adj @ assign
            embedding = self.gcn_forward(
                x, adj, self.conv_first_after_pool[i], self.conv_block_after_pool[i], self.conv_last_after_pool[i]
            )
            out_all.append(embedding.max(dim=1)[0])
        return self.pred_model(torch.cat(out_all, dim=1))
