import torch

from pykeen.nn import NodePieceRepresentation

num_entities, num_relations = 50, 6
triples = torch.stack([
    torch.randint(num_entities, (400,)),
    torch.randint(num_relations, (400,)),
    torch.randint(num_entities, (400,)),
], dim=1)

entities = NodePieceRepresentation(
    mapped_triples=triples, num_entities=num_entities, num_relations=num_relations,
    token_representations=[32], num_tokens=[4],
)
relations = torch.nn.Embedding(num_relations, 32)
params = list(entities.parameters()) + list(relations.parameters())
optimizer = torch.optim.Adam(params, lr=1e-2)

for step in range(100):
    h, r, t = triples.t()
    score = -(entities(h) + relations(r) - entities(t)).norm(dim=-1)
    corrupt = torch.randint(num_entities, t.shape)
    neg = -(entities(h) + relations(r) - entities(corrupt)).norm(dim=-1)
    loss = torch.relu(1.0 - score + neg).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
