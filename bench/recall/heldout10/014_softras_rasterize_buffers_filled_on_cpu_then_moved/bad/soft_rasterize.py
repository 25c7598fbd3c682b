import numpy as np
import torch
from torch.autograd import Function


def _soft_rasterize_reference(face_vertices, textures, faces_info, aggrs_info, soft_colors, image_size, sigma_val):
    """Pure PyTorch stand-in for the CUDA kernel: splats face centroids with a soft falloff."""
    nb, nf = face_vertices.shape[:2]
    centers = face_vertices.view(nb, nf, 3, 3).mean(2)[..., :2]
    ys, xs = torch.meshgrid(
        torch.linspace(-1, 1, image_size, device=face_vertices.device),
        torch.linspace(-1, 1, image_size, device=face_vertices.device),
        indexing="ij",
    )
    pix = torch.stack([xs, ys], -1).view(1, 1, -1, 2)
    d2 = ((pix - centers[:, :, None, :]) ** 2).sum(-1)
    prob = torch.sigmoid(-d2 / sigma_val)
    alpha = 1 - torch.prod(1 - prob, dim=1)
    colors = (prob.softmax(1)[..., None] * textures.view(nb, nf, 3, 3).mean(2)[:, :, None, :]).sum(1)
    soft_colors[:, :3] = colors.permute(0, 2, 1).reshape(nb, 3, image_size, image_size)
    soft_colors[:, 3] = alpha.view(nb, image_size, image_size)
    aggrs_info[:, 0] = d2.min(1).values.view(nb, image_size, image_size)
    faces_info[..., :3] = centers.repeat(1, 1, 2)[..., :3]
    return faces_info, aggrs_info, soft_colors


class SoftRasterizeFunction(Function):
    @staticmethod
    def forward(ctx, face_vertices, textures, image_size=256, background_color=(0, 0, 0),
                sigma_val=1e-5, dist_eps=1e-4):
        ctx.image_size = image_size
        ctx.sigma_val = sigma_val
        ctx.dist_eps = np.log(1.0 / dist_eps - 1.0)
        face_vertices = face_vertices.clone()
        textures = textures.clone()

        ctx.device = face_vertices.device
        ctx.batch_size, ctx.num_faces = face_vertices.shape[:2]

        faces_info = torch.FloatTensor(ctx.batch_size, ctx.num_faces, 9 * 3).fill_(0.0).to(device=ctx.device)  # expect: TCK201
        aggrs_info = torch.FloatTensor(ctx.batch_size, 2, ctx.image_size, ctx.image_size).fill_(0.0).to(device=ctx.device)  # expect: TCK201

        soft_colors = torch.FloatTensor(ctx.batch_size, 4, ctx.image_size, ctx.image_size).fill_(1.0).to(device=ctx.device)  # expect: TCK201
        soft_colors[:, 0, :, :] *= background_color[0]
        soft_colors[:, 1, :, :] *= background_color[1]
        soft_colors[:, 2, :, :] *= background_color[2]

        faces_info, aggrs_info, soft_colors = _soft_rasterize_reference(
            face_vertices, textures, faces_info, aggrs_info, soft_colors, image_size, sigma_val
        )
        ctx.save_for_backward(face_vertices, textures, soft_colors)
        return soft_colors

    @staticmethod
    def backward(ctx, grad_soft_colors):
        face_vertices, textures, soft_colors = ctx.saved_tensors
        grad_faces = torch.zeros_like(face_vertices, dtype=torch.float32, device=ctx.device)
        grad_textures = torch.zeros_like(textures, dtype=torch.float32, device=ctx.device)
        return grad_faces, grad_textures, None, None, None, None


def soft_rasterize(face_vertices, textures, image_size=256, background_color=(0, 0, 0), sigma_val=1e-5):
    return SoftRasterizeFunction.apply(face_vertices, textures, image_size, background_color, sigma_val)
