"""NodePiece: entities represented by an aggregation of a few token representations."""

from collections import defaultdict
from typing import Callable, Optional, Sequence, Tuple, Union

import torch
from torch import nn

from .emb import Embedding, RepresentationModule


class RelationTokenizer:
    """Tokenize each entity as a sample of the relations it takes part in."""

    def __call__(self, mapped_triples: torch.LongTensor, num_tokens: int, num_entities: int,
                 num_relations: int) -> Tuple[int, torch.LongTensor]:
        h, r, t = mapped_triples.t()
        pairs = torch.cat([torch.stack([h, r], dim=1), torch.stack([t, r + num_relations], dim=1)])
        entity_relations = defaultdict(set)
        for e, rel in pairs.unique(dim=0).tolist():
            entity_relations[e].add(rel)
        assignment = torch.full((num_entities, num_tokens), fill_value=-1, dtype=torch.long)
        for e, rels in entity_relations.items():
            rels = torch.as_tensor(sorted(rels), dtype=torch.long)
            rels = rels[torch.randperm(len(rels))[:num_tokens]]
            assignment[e, :len(rels)] = rels
        return 2 * num_relations + 1, assignment


class Tokenization(RepresentationModule):
    """Token assignment of every entity, plus the token representations."""

    def __init__(self, assignment: torch.LongTensor, token_representation: RepresentationModule) -> None:
        max_id, num_chosen = assignment.shape
        super().__init__(max_id=max_id, shape=(num_chosen,) + token_representation.shape)
        padding = assignment < 0
        self.padding_idx = int(assignment.max().item()) + 1
        assignment[padding] = self.padding_idx
        self.register_buffer("assignment", assignment)
        self.tokens = token_representation

    @classmethod
    def from_tokenizer(cls, tokenizer: RelationTokenizer, num_tokens: int,
                       token_representation: Union[int, RepresentationModule],
                       mapped_triples: torch.LongTensor, num_entities: int,
                       num_relations: int) -> "Tokenization":
        total, assignment = tokenizer(mapped_triples=mapped_triples, num_tokens=num_tokens,
                                      num_entities=num_entities, num_relations=num_relations)
        if isinstance(token_representation, int):
            # one extra row for the padding token
            token_representation = Embedding(max_id=total + 1, embedding_dim=token_representation)
        return cls(assignment=assignment, token_representation=token_representation)

    def forward(self, indices: Optional[torch.LongTensor] = None) -> torch.FloatTensor:
        token_ids = self.assignment if indices is None else self.assignment[indices]
        return self.tokens(token_ids)


class NodePieceRepresentation(RepresentationModule):
    """x_e = agg({T[t] | t in tokens(e)}), over one or more tokenizations."""

    def __init__(self, *, mapped_triples: torch.LongTensor, num_entities: int, num_relations: int,
                 token_representations: Sequence[Union[int, RepresentationModule]],
                 tokenizers: Optional[Sequence[RelationTokenizer]] = None,
                 num_tokens: Sequence[int] = (2,),
                 aggregation: Optional[Callable[[torch.FloatTensor, int], torch.FloatTensor]] = None):
        if tokenizers is None:
            tokenizers = [RelationTokenizer() for _ in token_representations]

        tokenizations = [
            Tokenization.from_tokenizer(
                tokenizer=tokenizer,
                num_tokens=k,
                token_representation=token_representation,
                mapped_triples=mapped_triples,
                num_entities=num_entities,
                num_relations=num_relations,
            )
            for tokenizer, token_representation, k in zip(tokenizers, token_representations, num_tokens)
        ]

        shapes = {t.tokens.shape for t in tokenizations}
        if len(shapes) != 1:
            raise ValueError(f"Inconsistent token shapes: {shapes}")
        shape = shapes.pop()

        # the base initialiser has to run before any submodule is assigned
        super().__init__(max_id=num_entities, shape=shape)

        self.tokenizations = nn.ModuleList(tokenizations)

        self.aggregation = aggregation if aggregation is not None else torch.mean
        self.aggregation_index = -(1 + len(shape))

    def forward(self, indices: Optional[torch.LongTensor] = None) -> torch.FloatTensor:
        return self.aggregation(
            torch.cat([tokenization(indices) for tokenization in self.tokenizations], dim=self.aggregation_index),
            self.aggregation_index,
        )
