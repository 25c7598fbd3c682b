from nflows.transforms.base import CompositeTransform, InverseTransform, Transform
from nflows.transforms.nonlinearities import Logit, Sigmoid
