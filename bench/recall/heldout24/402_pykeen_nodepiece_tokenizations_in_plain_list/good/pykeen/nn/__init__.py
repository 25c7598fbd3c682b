from .emb import Embedding, RepresentationModule
from .node_piece import NodePieceRepresentation, RelationTokenizer, Tokenization
