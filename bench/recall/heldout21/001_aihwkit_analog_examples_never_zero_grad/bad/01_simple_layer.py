"""Example 1: a single analog fully connected layer learns to map four inputs to two sums."""
from torch import Tensor
from torch.nn.functional import mse_loss

from aihwkit.nn import AnalogLinear
from aihwkit.optim import AnalogSGD
from aihwkit.simulator.configs import SingleRPUConfig
from aihwkit.simulator.configs.devices import ConstantStepDevice
from aihwkit.simulator.rpu_base import cuda

inputs = Tensor([[0.1, 0.2, 0.4, 0.3], [0.2, 0.1, 0.1, 0.3]])
targets = Tensor([[1.0, 0.5], [0.7, 0.3]])

layer_config = SingleRPUConfig(device=ConstantStepDevice())
model = AnalogLinear(4, 2, bias=True, rpu_config=layer_config)

if cuda.is_compiled():
    inputs = inputs.cuda()
    targets = targets.cuda()
    model.cuda()

opt = AnalogSGD(model.parameters(), lr=0.1)
opt.regroup_param_groups(model)

for epoch in range(100):
    prediction = model(inputs)
    loss = mse_loss(prediction, targets)
    loss.backward()
    opt.step()  # expect: TCK102
    print("Loss error: {:.16f}".format(loss))
