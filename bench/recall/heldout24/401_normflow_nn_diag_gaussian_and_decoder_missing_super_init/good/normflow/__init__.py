from .core import *
from . import distributions
