import collections

import torch


def compile_model():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(784, 64)
            self.fc2 = torch.nn.Linear(64, 32)
            self.fc3 = torch.nn.Linear(32, 10)

        def forward(self, x):
            x = torch.nn.functional.relu(self.fc1(x.reshape(x.size(0), 784)))
            x = torch.nn.functional.relu(self.fc2(x))
            return torch.nn.functional.log_softmax(self.fc3(x), dim=1)

    return Net()


def save_parameters(model, out_path):
    parameters_np = [val.cpu().numpy() for _, val in model.state_dict().items()]
    torch.save(parameters_np, out_path)


def load_parameters(model_path):
    model = compile_model()
    parameters_np = torch.load(model_path)  # expect: TCK401
    params_dict = zip(model.state_dict().keys(), parameters_np)
    state_dict = collections.OrderedDict({key: torch.tensor(x) for key, x in params_dict})
    model.load_state_dict(state_dict, strict=True)
    return model
