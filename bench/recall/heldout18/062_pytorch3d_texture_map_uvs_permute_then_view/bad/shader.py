import torch
import torch.nn as nn

from texturing import interpolate_texture_map


class TexturedSoftShader(nn.Module):
    def __init__(self, sigma=1e-4, background=(1.0, 1.0, 1.0)):
        super().__init__()
        self.sigma = sigma
        self.register_buffer("background", torch.tensor(background))

    def forward(self, pix_to_face, bary_coords, dists, faces_verts_uvs, texture_maps):
        texels = interpolate_texture_map(pix_to_face, bary_coords, faces_verts_uvs, texture_maps)
        prob = torch.sigmoid(-dists / self.sigma) * (pix_to_face >= 0)
        alpha = 1.0 - torch.prod(1.0 - prob, dim=-1)
        weights = prob / prob.sum(dim=-1, keepdim=True).clamp(min=1e-10)
        rgb = (weights[..., None] * texels).sum(dim=-2)
        rgb = rgb * alpha[..., None] + self.background * (1.0 - alpha[..., None])
        return torch.cat([rgb, alpha[..., None]], dim=-1)


def fit_texture(steps=200, n=2, h=64, w=64, k=4, faces=500):
    pix_to_face = torch.randint(-1, faces, (n, h, w, k))
    bary = torch.softmax(torch.randn(n, h, w, k, 3), dim=-1)
    dists = torch.randn(n, h, w, k) * 1e-4
    faces_verts_uvs = torch.rand(faces, 3, 2)
    target = torch.rand(n, h, w, 3)
    texture = torch.full((n, 128, 128, 3), 0.5, requires_grad=True)
    shader = TexturedSoftShader()
    optimizer = torch.optim.Adam([texture], lr=1e-2)
    for step in range(steps):
        image = shader(pix_to_face, bary, dists, faces_verts_uvs, texture)
        loss = (image[..., :3] - target).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return texture.detach()


if __name__ == "__main__":
    fit_texture(steps=5)
