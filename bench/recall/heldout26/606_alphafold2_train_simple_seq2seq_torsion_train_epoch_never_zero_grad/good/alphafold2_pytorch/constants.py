import torch

DISTOGRAM_BUCKETS = 37
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
