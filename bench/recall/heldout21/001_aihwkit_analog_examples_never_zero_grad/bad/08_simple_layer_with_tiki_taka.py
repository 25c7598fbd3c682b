"""Example 8: one analog layer trained with the Tiki-taka transfer learning rule."""
from torch import Tensor
from torch.nn.functional import mse_loss

from aihwkit.nn import AnalogLinear
from aihwkit.optim import AnalogSGD
from aihwkit.simulator.configs import UnitCellRPUConfig
from aihwkit.simulator.configs.devices import SoftBoundsDevice, TransferCompound
from aihwkit.simulator.rpu_base import cuda

inputs = Tensor([[0.1, 0.2, 0.4, 0.3], [0.2, 0.1, 0.1, 0.3]])
targets = Tensor([[1.0, 0.5], [0.7, 0.3]])

compound = TransferCompound(
    unit_cell_devices=[
        SoftBoundsDevice(w_min=-0.3, w_max=0.3),
        SoftBoundsDevice(w_min=-0.6, w_max=0.6),
    ],
    units_in_mbatch=True,
    transfer_every=2,
    n_reads_per_transfer=1,
    gamma=0.0,
    scale_transfer_lr=True,
    transfer_lr=1.0,
    fast_lr=0.1,
    transfer_columns=True,
)
rpu_config = UnitCellRPUConfig(device=compound)
rpu_config.forward.inp_res = 1 / 64.0
rpu_config.backward = rpu_config.forward
rpu_config.device.transfer_forward = rpu_config.forward
rpu_config.device.transfer_update = rpu_config.update

model = AnalogLinear(4, 2, bias=True, rpu_config=rpu_config)
print(model.analog_tile.tile)

if cuda.is_compiled():
    inputs = inputs.cuda()
    targets = targets.cuda()
    model.cuda()

opt = AnalogSGD(model.parameters(), lr=0.1)
opt.regroup_param_groups(model)

for epoch in range(500):
    prediction = model(inputs)
    loss = mse_loss(prediction, targets)
    loss.backward()
    opt.step()  # expect: TCK102
    print("{}: Loss error: {:.16f}".format(epoch, loss), end="\r" if epoch % 50 else "\n")
