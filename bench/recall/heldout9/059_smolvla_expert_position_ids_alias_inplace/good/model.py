import torch
import torch.nn as nn

from rope import apply_rope


class SmolVLMWithExpert(nn.Module):
    def __init__(self, vlm_layers, expert_layers):
        super().__init__()
        self.vlm_layers = nn.ModuleList(vlm_layers)
        self.expert_layers = nn.ModuleList(expert_layers)

    def cross_attn_layer(self, inputs_embeds, layer_idx, position_ids, past_key_values):
        att_outputs = []
        if len(inputs_embeds) == 2 and not past_key_values:
            prefix = inputs_embeds[0]
            seq_len = prefix.shape[1]
            prefix_pos, expert_position_id = position_ids[:, :seq_len], position_ids[:, seq_len:]
            layer = self.vlm_layers[layer_idx]
            hidden = layer.input_layernorm(prefix)
            query = apply_rope(layer.self_attn.q_proj(hidden), prefix_pos)
            att_outputs.append(layer.self_attn(query))
        else:
            expert_position_id = position_ids.clone()

        expert_layer = self.expert_layers[layer_idx]
        if expert_layer is not None:
            expert_hidden = expert_layer.input_layernorm(inputs_embeds[-1])
            expert_query = expert_layer.self_attn.q_proj(expert_hidden)
            expert_position_id -= torch.min(expert_position_id, dim=1, keepdim=True).values
            expert_query = apply_rope(expert_query, expert_position_id)
            att_outputs.append(expert_layer.self_attn(expert_query))
        return att_outputs

    def forward(self, inputs_embeds, position_ids, past_key_values=None):
        outputs = []
        for layer_idx in range(len(self.vlm_layers)):
            outputs = self.cross_attn_layer(inputs_embeds, layer_idx, position_ids, past_key_values)
        return outputs
