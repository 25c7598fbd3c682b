import torch

from nequip.nn import RadialBasisEdgeEncoding

config = {"r_max": 4.0, "num_basis": 8, "BesselBasis_trainable": False}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

encoder = RadialBasisEdgeEncoding(
    r_max=config["r_max"], num_basis=config["num_basis"], trainable_basis=config["BesselBasis_trainable"],
)
readout = torch.nn.Linear(config["num_basis"], 1)
model = torch.nn.ModuleDict({"encoder": encoder, "readout": readout}).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

pos = torch.randn(32, 3, device=device) * 2
edge_index = torch.combinations(torch.arange(32, device=device), 2).t()
target = torch.randn(1, device=device)
for step in range(100):
    energy = model["readout"](model["encoder"](pos, edge_index)).sum()
    loss = (energy - target).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
