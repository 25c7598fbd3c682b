# Train FBPConvNet on simulated clinical-dose CT: sinograms in, reconstructions out.
import pathlib

import numpy as np
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm

from fbpconvnet import FBPConvNet

device = torch.device("cuda:0")
torch.cuda.set_device(device)
savefolder = pathlib.Path("trained_models/clinical_dose/")
validation_fname = savefolder.joinpath("FBPConvNet_min_val.pt")

train_set = torch.load("clinical_dose_train.pt")
val_set = torch.load("clinical_dose_val.pt")
fbp_operator = torch.load("fbp_operator.pt")

batch_size = 4
train_loader = DataLoader(train_set, batch_size, shuffle=True)
val_loader = DataLoader(val_set, batch_size, shuffle=False)

model = FBPConvNet(fbp_operator).to(device)
loss_fcn = torch.nn.MSELoss()
epochs = 100
optimiser = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.99))
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, epochs * len(train_loader))

min_valid_loss = np.inf
total_loss = np.zeros(epochs)
for epoch in range(epochs):
    model.train()
    train_loss = 0.0
    for sinogram, target_reconstruction in tqdm(train_loader):
        sinogram, target_reconstruction = sinogram.to(device), target_reconstruction.to(device)
        optimiser.zero_grad()
        reconstruction = model(sinogram)
        loss = loss_fcn(reconstruction, target_reconstruction)
        loss.backward()
        train_loss += loss.item()
        optimiser.step()
        scheduler.step()
    total_loss[epoch] = train_loss

    # Validation
    valid_loss = 0.0
    model.eval()
    for sinogram, target_reconstruction in tqdm(val_loader):
        sinogram, target_reconstruction = sinogram.to(device), target_reconstruction.to(device)
        reconstruction = model(sinogram)  # expect: TCK113
        loss = loss_fcn(target_reconstruction, reconstruction)
        valid_loss += loss.item()

    print(f"Epoch {epoch + 1}  train {train_loss / len(train_loader):.6f}  valid {valid_loss / len(val_loader):.6f}")
    if min_valid_loss > valid_loss:
        min_valid_loss = valid_loss
        torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "loss": min_valid_loss}, validation_fname)
