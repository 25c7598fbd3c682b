import torch
import torch.nn.functional as F


def interpolate_face_attributes(pix_to_face, barycentric_coords, face_attributes):
    # pix_to_face: (N, H, W, K) packed face index or -1; bary: (N, H, W, K, 3); attrs: (F, 3, D)
    mask = pix_to_face < 0
    idx = pix_to_face.clamp(min=0)
    attrs = face_attributes[idx]  # (N, H, W, K, 3, D)
    out = (barycentric_coords[..., None] * attrs).sum(dim=-2)
    return out.masked_fill(mask[..., None], 0.0)


def interpolate_texture_map(pix_to_face, barycentric_coords, faces_verts_uvs, texture_maps):
    """Sample each mesh's UV texture map at every rasterized pixel.

    texture_maps: (N, H_in, W_in, C); returns texels (N, H_out, W_out, K, C).
    """
    pixel_uvs = interpolate_face_attributes(pix_to_face, barycentric_coords, faces_verts_uvs)
    N, H_out, W_out, K = pix_to_face.shape
    N, H_in, W_in, C = texture_maps.shape

    # pixel_uvs: (N, H, W, K, 2) -> (N, K, H, W, 2) -> (NK, H, W, 2)
    pixel_uvs = pixel_uvs.permute(0, 3, 1, 2, 4).view(N * K, H_out, W_out, 2)  # expect: TCK705

    # texture maps: (N, H, W, C) -> (N, C, H, W) -> one copy per face layer
    texture_maps = texture_maps.permute(0, 3, 1, 2)[None, ...]
    texture_maps = texture_maps.expand(K, -1, -1, -1, -1).transpose(0, 1).reshape(N * K, C, H_in, W_in)

    # grid_sample wants uv in [-1, 1] with the origin at the top left
    pixel_uvs = pixel_uvs * 2.0 - 1.0
    texture_maps = torch.flip(texture_maps, [2])
    texels = F.grid_sample(texture_maps, pixel_uvs, align_corners=False)
    return texels.view(N, K, C, H_out, W_out).permute(0, 3, 4, 1, 2)
