from .brainomni import BrainOmni
