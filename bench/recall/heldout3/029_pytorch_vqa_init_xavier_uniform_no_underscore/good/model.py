import torch.nn as nn
import torch.nn.init as init


class Net(nn.Module):
    def __init__(self, embedding_tokens, question_features=1024, vision_features=2048, max_answers=3000):
        super(Net, self).__init__()
        self.embedding = nn.Embedding(embedding_tokens, 300, padding_idx=0)
        self.lstm = nn.LSTM(300, question_features, num_layers=1)
        self.attention = nn.Conv2d(vision_features + question_features, 512, 1)
        self.classifier = nn.Linear(vision_features + question_features, max_answers)

        for m in self.modules():
            if isinstance(m, nn.Linear) or isinstance(m, nn.Conv2d):
                init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    m.bias.data.zero_()
