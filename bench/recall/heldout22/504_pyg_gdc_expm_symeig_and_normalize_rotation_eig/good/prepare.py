import torch

from diffusion import HeatDiffusion, random_graph
from normalize_rotation import NormalizeRotation


class Sample:
    def __init__(self, pos, edge_index):
        self.pos = pos
        self.edge_index = edge_index
        self.normal = None

    @property
    def num_nodes(self):
        return self.pos.size(0)

    def is_undirected(self):
        pairs = set(map(tuple, self.edge_index.t().tolist()))
        return all((j, i) in pairs for i, j in pairs)


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data


def main():
    pre_transform = Compose([NormalizeRotation(sort=True), HeatDiffusion(t=2.0, topk=8)])
    dataset = [Sample(torch.randn(64, 3), random_graph(64, seed=i)) for i in range(4)]
    processed = [pre_transform(d) for d in dataset]
    for d in processed:
        print(d.pos.shape, d.edge_index.shape, float(d.edge_weight.sum()))


if __name__ == "__main__":
    main()
