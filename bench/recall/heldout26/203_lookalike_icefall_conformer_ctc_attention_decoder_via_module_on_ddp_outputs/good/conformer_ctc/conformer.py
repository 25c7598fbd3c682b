import torch
import torch.nn.functional as F
from torch import nn


class Conformer(nn.Module):
    """Shared encoder with a CTC head (forward) and an attention decoder (decoder_forward)."""

    def __init__(self, num_features, num_classes, d_model=256, nhead=4, num_encoder_layers=6,
                 num_decoder_layers=6, subsampling_factor=4):
        super().__init__()
        self.subsampling_factor = subsampling_factor
        self.encoder_embed = nn.Sequential(
            nn.Conv1d(num_features, d_model, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv1d(d_model, d_model, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, batch_first=True), num_encoder_layers
        )
        self.encoder_output_layer = nn.Linear(d_model, num_classes)
        self.decoder_embed = nn.Embedding(num_classes, d_model)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model, nhead, 4 * d_model, batch_first=True), num_decoder_layers
        )
        self.decoder_output_layer = nn.Linear(d_model, num_classes)

    def forward(self, feature, feature_lens):
        """Returns CTC log-probs (N, T', C), the encoder memory (N, T', D) and its padding mask."""
        x = self.encoder_embed(feature.transpose(1, 2)).transpose(1, 2)
        out_lens = torch.div(feature_lens + self.subsampling_factor - 1, self.subsampling_factor, rounding_mode="floor")
        out_lens = out_lens.clamp(max=x.size(1))
        memory_mask = torch.arange(x.size(1), device=x.device)[None, :] >= out_lens[:, None]
        encoder_memory = self.encoder(x, src_key_padding_mask=memory_mask)
        nnet_output = self.encoder_output_layer(encoder_memory).log_softmax(dim=-1)
        return nnet_output, encoder_memory, memory_mask

    def decoder_forward(self, encoder_memory, memory_mask, token_ids, sos_id, eos_id):
        """Teacher-forced attention-decoder loss (sum over tokens) on the encoder's output."""
        ys_in = [torch.tensor([sos_id] + ids, device=encoder_memory.device) for ids in token_ids]
        ys_out = [torch.tensor(ids + [eos_id], device=encoder_memory.device) for ids in token_ids]
        ys_in = nn.utils.rnn.pad_sequence(ys_in, batch_first=True, padding_value=eos_id)
        ys_out = nn.utils.rnn.pad_sequence(ys_out, batch_first=True, padding_value=-1)
        causal = torch.triu(
            torch.ones(ys_in.size(1), ys_in.size(1), dtype=torch.bool, device=ys_in.device), diagonal=1
        )
        h = self.decoder(self.decoder_embed(ys_in), encoder_memory, tgt_mask=causal, memory_key_padding_mask=memory_mask)
        logits = self.decoder_output_layer(h)
        return F.cross_entropy(logits.flatten(0, 1), ys_out.flatten(), ignore_index=-1, reduction="sum")
