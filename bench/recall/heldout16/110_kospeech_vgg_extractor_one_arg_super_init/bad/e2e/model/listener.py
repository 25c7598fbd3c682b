import torch.nn as nn

from e2e.model.module import VGGExtractor


class Listener(nn.Module):
    """Encoder of the listen-attend-spell model: a VGG front end followed by a bidirectional GRU."""

    def __init__(self, input_size, hidden_dim, dropout_p=0.3, num_layers=3, bidirectional=True):
        super(Listener, self).__init__()
        rnn_input_size = (input_size >> 2) * 128
        self.extractor = VGGExtractor(in_channel=1)
        self.rnn = nn.GRU(rnn_input_size, hidden_dim, num_layers, batch_first=True, dropout=dropout_p, bidirectional=bidirectional)

    def forward(self, inputs, input_lengths):
        inputs = inputs.unsqueeze(1).permute(0, 1, 3, 2)  # (B, 1, n_mels, T)
        conv_feat, seq_lengths = self.extractor(inputs, input_lengths)
        batch_size, channel, freq, seq_length = conv_feat.size()
        conv_feat = conv_feat.view(batch_size, channel * freq, seq_length).permute(0, 2, 1).contiguous()
        packed = nn.utils.rnn.pack_padded_sequence(conv_feat, seq_lengths.cpu(), batch_first=True, enforce_sorted=False)
        output, hidden = self.rnn(packed)
        output, _ = nn.utils.rnn.pad_packed_sequence(output, batch_first=True)
        return output, hidden
