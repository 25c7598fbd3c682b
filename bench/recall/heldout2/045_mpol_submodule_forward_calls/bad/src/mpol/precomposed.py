from torch import nn

from mpol.fourier import FourierCube
from mpol.images import BaseCube, HannConvCube, ImageCube


class SimpleNet(nn.Module):
    def __init__(self, coords, nchan=1):
        super().__init__()
        self.coords = coords
        self.nchan = nchan
        self.bcube = BaseCube(coords=coords, nchan=nchan)
        self.conv_layer = HannConvCube(nchan=nchan)
        self.icube = ImageCube(coords=coords, nchan=nchan)
        self.fcube = FourierCube(coords=coords)

    def forward(self):
        x = self.bcube.forward()  # expect: TCK105
        x = self.conv_layer(x)
        x = self.icube.forward(x)  # expect: TCK105
        vis = self.fcube.forward(x)  # expect: TCK105
        return vis
