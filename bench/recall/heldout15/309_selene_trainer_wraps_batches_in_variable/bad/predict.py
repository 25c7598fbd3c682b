"""Predictions for a batch of one-hot encoded sequences."""
import numpy as np
import torch
from torch.autograd import Variable


def predict(model, batch_sequences, use_cuda=False):
    """Returns the model's predictions, shape (batch, n_features), as a numpy array."""
    inputs = torch.from_numpy(np.asarray(batch_sequences, dtype=np.float32))
    if use_cuda:
        inputs = inputs.cuda()
    with torch.no_grad():
        inputs = Variable(inputs)  # expect: TCK703
        outputs = model(inputs.transpose(1, 2))
        return outputs.data.cpu().numpy()
