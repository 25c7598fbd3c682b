from .network_utils import *
from .network_bodies import *
