from .alphafold3 import Alphafold3
from .trainer import Trainer
