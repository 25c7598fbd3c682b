import torch
import torch.nn as nn
import torch.nn.functional as F


class LearnedPositionalEmbedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim, padding_idx):
        super().__init__(num_embeddings + padding_idx + 1, embedding_dim, padding_idx=padding_idx)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.size(1), device=input_ids.device) + self.padding_idx + 1
        return super().forward(positions.unsqueeze(0).expand_as(input_ids))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, heads, ffn_dim, dropout):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, heads, dropout=dropout, batch_first=True)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, padding_mask):
        residual = x
        x, attn_weights = self.self_attn(x, x, x, key_padding_mask=padding_mask)
        x = self.self_attn_layer_norm(residual + self.dropout(x))
        residual = x
        x = self.fc2(F.gelu(self.fc1(x)))
        x = self.final_layer_norm(residual + self.dropout(x))
        return x, attn_weights


class DecoderLayer(nn.Module):
    def __init__(self, d_model, heads, ffn_dim, dropout):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, heads, dropout=dropout, batch_first=True)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.encoder_attn = nn.MultiheadAttention(d_model, heads, dropout=dropout, batch_first=True)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, encoder_hidden_states, encoder_padding_mask, causal_mask):
        residual = x
        x, self_attn_weights = self.self_attn(x, x, x, attn_mask=causal_mask)
        x = self.self_attn_layer_norm(residual + self.dropout(x))
        residual = x
        x, encoder_attn_weights = self.encoder_attn(x, encoder_hidden_states, encoder_hidden_states, key_padding_mask=encoder_padding_mask)
        x = self.encoder_attn_layer_norm(residual + self.dropout(x))
        residual = x
        x = self.fc2(F.gelu(self.fc1(x)))
        x = self.final_layer_norm(residual + self.dropout(x))
        return x, self_attn_weights


class BartEncoder(nn.Module):
    def __init__(self, config, embed_tokens):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.embed_positions = LearnedPositionalEmbedding(config["max_positions"], config["d_model"], config["pad_id"])
        self.layers = nn.ModuleList([EncoderLayer(config["d_model"], config["heads"], config["ffn_dim"], config["dropout"]) for _ in range(config["encoder_layers"])])
        self.layernorm_embedding = nn.LayerNorm(config["d_model"])
        self.pad_id = config["pad_id"]

    def forward(self, input_ids):
        padding_mask = input_ids.eq(self.pad_id)
        x = self.embed_tokens(input_ids) + self.embed_positions(input_ids)
        x = self.layernorm_embedding(x)
        for encoder_layer in self.layers:
            x, attn = encoder_layer(x, padding_mask)
        return x, padding_mask


class BartDecoder(nn.Module):
    def __init__(self, config, embed_tokens):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.embed_positions = LearnedPositionalEmbedding(config["max_positions"], config["d_model"], config["pad_id"])
        self.layers = nn.ModuleList([DecoderLayer(config["d_model"], config["heads"], config["ffn_dim"], config["dropout"]) for _ in range(config["decoder_layers"])])
        self.layernorm_embedding = nn.LayerNorm(config["d_model"])

    def forward(self, decoder_input_ids, encoder_hidden_states, encoder_padding_mask):
        length = decoder_input_ids.size(1)
        causal_mask = torch.triu(torch.ones(length, length, dtype=torch.bool, device=decoder_input_ids.device), diagonal=1)
        x = self.embed_tokens(decoder_input_ids) + self.embed_positions(decoder_input_ids)
        x = self.layernorm_embedding(x)
        for decoder_layer in self.layers:
            x, layer_self_attn = decoder_layer(x, encoder_hidden_states, encoder_padding_mask, causal_mask)
        return x


class BartModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.shared = nn.Embedding(config["vocab_size"], config["d_model"], padding_idx=config["pad_id"])
        self.encoder = BartEncoder(config, self.shared)
        self.decoder = BartDecoder(config, self.shared)

    def forward(self, input_ids, decoder_input_ids):
        encoder_outputs, padding_mask = self.encoder(input_ids)
        return self.decoder(decoder_input_ids, encoder_outputs, padding_mask)


class BartForConditionalGeneration(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.model = BartModel(config)
        self.lm_head = nn.Linear(config["d_model"], config["vocab_size"], bias=False)
        self.lm_head.weight = self.model.shared.weight

    def forward(self, input_ids, decoder_input_ids, labels=None):
        outputs = self.model(input_ids, decoder_input_ids)
        lm_logits = self.lm_head(outputs)
        if labels is None:
            return lm_logits
        loss = F.cross_entropy(lm_logits.reshape(-1, lm_logits.size(-1)), labels.reshape(-1), ignore_index=-100)
        return loss, lm_logits
