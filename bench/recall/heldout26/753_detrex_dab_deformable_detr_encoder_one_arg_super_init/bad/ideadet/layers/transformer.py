import copy

import torch.nn as nn


class BaseTransformerLayer(nn.Module):
    """One layer built from an operation order such as ("self_attn", "norm", "ffn", "norm")."""

    def __init__(self, attn, ffn: nn.Module, norm: nn.Module, operation_order: tuple = None):
        super(BaseTransformerLayer, self).__init__()
        num_attn = operation_order.count("self_attn") + operation_order.count("cross_attn")
        if isinstance(attn, nn.Module):
            attn = [copy.deepcopy(attn) for _ in range(num_attn)]
        assert len(attn) == num_attn
        self.operation_order = operation_order
        self.pre_norm = operation_order[0] == "norm"
        self.attentions = nn.ModuleList(attn)
        self.embed_dim = self.attentions[0].embed_dim
        self.ffns = nn.ModuleList(copy.deepcopy(ffn) for _ in range(operation_order.count("ffn")))
        self.norms = nn.ModuleList(copy.deepcopy(norm) for _ in range(operation_order.count("norm")))

    def forward(self, query, key=None, value=None, query_pos=None, key_pos=None, attn_masks=None,
                query_key_padding_mask=None, key_padding_mask=None, **kwargs):
        norm_index = attn_index = ffn_index = 0
        identity = query
        for layer in self.operation_order:
            if layer == "self_attn":
                query = self.attentions[attn_index](
                    query, query, query, identity if self.pre_norm else None,
                    query_pos=query_pos, key_pos=query_pos, key_padding_mask=query_key_padding_mask, **kwargs)
                attn_index += 1
                identity = query
            elif layer == "cross_attn":
                query = self.attentions[attn_index](
                    query, key, value, identity if self.pre_norm else None,
                    query_pos=query_pos, key_pos=key_pos, key_padding_mask=key_padding_mask, **kwargs)
                attn_index += 1
                identity = query
            elif layer == "norm":
                query = self.norms[norm_index](query)
                norm_index += 1
            elif layer == "ffn":
                query = self.ffns[ffn_index](query, identity if self.pre_norm else None)
                ffn_index += 1
        return query


class TransformerLayerSequence(nn.Module):
    """A stack of deep copies of one transformer layer."""

    def __init__(self, transformer_layers=None, num_layers=None):
        super(TransformerLayerSequence, self).__init__()
        self.num_layers = num_layers
        self.layers = nn.ModuleList()
        if isinstance(transformer_layers, nn.Module):
            for _ in range(num_layers):
                self.layers.append(copy.deepcopy(transformer_layers))
        else:
            assert isinstance(transformer_layers, list) and len(transformer_layers) == num_layers
            self.layers.extend(transformer_layers)

    def forward(self):
        raise NotImplementedError()
