import torch.nn as nn
import torch.nn.functional as F


def column_gather(y_out, x_lengths):
    x_lengths = x_lengths.long().detach().cpu().numpy() - 1
    return y_out[range(y_out.size(0)), x_lengths]


class SurnameClassifier(nn.Module):
    def __init__(self, embedding_size, num_embeddings, num_classes, rnn_hidden_size, padding_idx=0):
        super().__init__()
        self.emb = nn.Embedding(num_embeddings, embedding_size, padding_idx=padding_idx)
        self.rnn = nn.GRU(embedding_size, rnn_hidden_size, batch_first=True)
        self.fc1 = nn.Linear(rnn_hidden_size, rnn_hidden_size)
        self.fc2 = nn.Linear(rnn_hidden_size, num_classes)

    def forward(self, x_in, x_lengths=None, apply_softmax=False):
        x_embedded = self.emb(x_in)
        y_out, _ = self.rnn(x_embedded)
        if x_lengths is not None:
            y_out = column_gather(y_out, x_lengths)
        else:
            y_out = y_out[:, -1, :]
        y_out = F.relu(self.fc1(F.dropout(y_out, 0.5)))  # expect: TCK604
        y_out = self.fc2(F.dropout(y_out, 0.5))  # expect: TCK604
        if apply_softmax:
            y_out = F.softmax(y_out, dim=1)
        return y_out
