import torch.nn as nn


class AttentionalClassify(nn.Module):
    def __init__(self):
        super(AttentionalClassify, self).__init__()

    def forward(self, similarities, support_set_y):
        """
        similarities: [batch_size, sequence_length] cosine similarities
        support_set_y: [batch_size, sequence_length, num_classes] one-hot labels
        returns similarity-weighted class scores (logits for cross_entropy)
        """
        preds = similarities.unsqueeze(1).bmm(support_set_y).squeeze(1)
        return preds
