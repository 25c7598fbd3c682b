import torch

SCALE = 0.25  # image pixels per simulator unit


def proximity_cost(images, car_size, unnormalize=False, s_mean=None, s_std=None):
    """Penalises other cars that appear inside a proximity mask in front of the ego car.

    images: (bsize, npred, nchannels, crop_h, crop_w) predicted top-down views
    car_size: (bsize, 2) width and length of the ego car in feet
    """
    bsize, npred, nchannels, crop_h, crop_w = images.shape
    device = images.device
    images = images.reshape(bsize * npred, nchannels, crop_h, crop_w)

    width, length = car_size[:, 0], car_size[:, 1]  # feet
    width = width * SCALE * (0.3048 * 24 / 3.7)  # pixels
    length = length * SCALE * (0.3048 * 24 / 3.7)  # pixels

    # separable proximity mask
    width.fill_(24 * SCALE / 2)
    max_x = torch.ceil((crop_h - length) / 2)
    max_y = torch.ceil(torch.zeros(width.size()).fill_(crop_w) / 2)
    max_x = max_x.view(bsize, 1).expand(bsize, npred).contiguous().view(bsize * npred).to(device)
    max_y = max_y.view(bsize, 1).expand(bsize, npred).contiguous().view(bsize * npred).to(device)
    min_y = torch.ceil(crop_w / 2 - width)  # assumes other cars are as wide as the ego car
    min_y = min_y.view(bsize, 1).expand(bsize, npred).contiguous().view(bsize * npred).to(device)

    x_filter = (1 - torch.abs(torch.linspace(-1, 1, crop_h, device=device))) * crop_h / 2
    x_filter = x_filter.unsqueeze(0).expand(bsize * npred, crop_h)
    x_filter = torch.min(x_filter, max_x.view(bsize * npred, 1).expand(x_filter.size()))
    x_filter = (x_filter == max_x.unsqueeze(1).expand(x_filter.size())).float()

    y_filter = (1 - torch.abs(torch.linspace(-1, 1, crop_w, device=device))) * crop_w / 2
    y_filter = y_filter.view(1, crop_w).expand(bsize * npred, crop_w)
    y_filter = torch.max(y_filter, min_y.view(bsize * npred, 1))
    y_filter = (y_filter - min_y.view(bsize * npred, 1)) / (max_y.view(bsize * npred, 1) - min_y.view(bsize * npred, 1))

    proximity_mask = torch.bmm(x_filter.view(-1, crop_h, 1), y_filter.view(-1, 1, crop_w))
    proximity_mask = proximity_mask.view(bsize, npred, crop_h, crop_w)
    images = images.view(bsize, npred, nchannels, crop_h, crop_w)
    costs = torch.max((proximity_mask * images[:, :, 0].float()).view(bsize, npred, -1), 2)[0]
    return costs, proximity_mask
