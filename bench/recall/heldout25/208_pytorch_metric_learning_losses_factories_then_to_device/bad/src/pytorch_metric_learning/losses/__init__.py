from .fast_ap_loss import FastAPLoss
from .n_pairs_loss import NPairsLoss
from .soft_triple_loss import SoftTripleLoss
