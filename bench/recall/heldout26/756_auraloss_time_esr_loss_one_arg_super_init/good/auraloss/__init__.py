"""Audio-focused loss functions."""
from . import freq
from . import time
