import math
from functools import partial

import torch
import torch.nn as nn
from packaging import version

TORCH_GE_1_8_0 = version.parse(torch.__version__) >= version.parse("1.8.0")


def orthogonal_matrix_chunk(cols, device=None):
    unstructured_block = torch.randn((cols, cols), device=device)
    if TORCH_GE_1_8_0:
        q, r = torch.linalg.qr(unstructured_block.cpu(), mode="reduced")
    else:
        q, r = torch.qr(unstructured_block.cpu(), some=True)
    q, r = map(lambda t: t.to(device), (q, r))
    return q.t()


def gaussian_orthogonal_random_matrix(nb_rows, nb_columns, scaling=0, device=None):
    nb_full_blocks = int(nb_rows / nb_columns)
    block_list = [orthogonal_matrix_chunk(nb_columns, device=device) for _ in range(nb_full_blocks)]
    remaining_rows = nb_rows - nb_full_blocks * nb_columns
    if remaining_rows > 0:
        q = orthogonal_matrix_chunk(nb_columns, device=device)
        block_list.append(q[:remaining_rows])
    final_matrix = torch.cat(block_list)
    if scaling == 0:
        multiplier = torch.linalg.vector_norm(torch.randn((nb_rows, nb_columns), device=device), dim=1)
    else:
        multiplier = math.sqrt(float(nb_columns)) * torch.ones((nb_rows,), device=device)
    return torch.diag(multiplier) @ final_matrix


def softmax_kernel(data, projection_matrix, is_query, eps=1e-4):
    data_normalizer = data.shape[-1] ** -0.25
    data_dash = torch.einsum("...id,jd->...ij", data_normalizer * data, projection_matrix.type_as(data))
    diag_data = (data ** 2).sum(dim=-1, keepdim=True) / 2.0 * data_normalizer ** 2
    if is_query:
        stab = data_dash.amax(dim=-1, keepdim=True).detach()
    else:
        stab = data_dash.amax(dim=(-1, -2), keepdim=True).detach()
    ratio = projection_matrix.shape[0] ** -0.5
    return ratio * (torch.exp(data_dash - diag_data - stab) + eps)


class FastAttention(nn.Module):
    def __init__(self, dim_heads, nb_features=None):
        super().__init__()
        self.nb_features = nb_features or int(dim_heads * math.log(dim_heads))
        self.dim_heads = dim_heads
        self.create_projection = partial(gaussian_orthogonal_random_matrix, nb_rows=self.nb_features, nb_columns=dim_heads)
        self.register_buffer("projection_matrix", self.create_projection())

    @torch.no_grad()
    def redraw_projection_matrix(self):
        projections = self.create_projection(device=self.projection_matrix.device)
        self.projection_matrix.copy_(projections)

    def forward(self, q, k, v):
        q = softmax_kernel(q, self.projection_matrix, is_query=True)
        k = softmax_kernel(k, self.projection_matrix, is_query=False)
        k_cumsum = k.sum(dim=-2)
        d_inv = 1.0 / torch.einsum("...nd,...d->...n", q, k_cumsum.type_as(q))
        context = torch.einsum("...nd,...ne->...de", k, v)
        return torch.einsum("...de,...nd,...n->...ne", context, q, d_inv)
