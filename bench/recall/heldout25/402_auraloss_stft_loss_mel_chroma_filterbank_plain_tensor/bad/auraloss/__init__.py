from .freq import MelSTFTLoss, MultiResolutionSTFTLoss, STFTLoss
