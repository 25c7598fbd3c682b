from .radial_basis import BesselBasis
from .embedding import RadialBasisEdgeEncoding
