import torch

import train_and_test as tnt


def run(ppnet, train_loader, joint_optimizer_specs, warm_optimizer, num_train_epochs, num_warm_epochs, coefs):
    joint_optimizer = torch.optim.Adam(joint_optimizer_specs)
    joint_lr_scheduler = torch.optim.lr_scheduler.StepLR(joint_optimizer, step_size=5, gamma=0.1)
    for epoch in range(num_train_epochs):
        if epoch < num_warm_epochs:
            _ = tnt.train(model=ppnet, dataloader=train_loader, optimizer=warm_optimizer, coefs=coefs)
        else:
            tnt.joint(model=ppnet)
            _ = tnt.train(model=ppnet, dataloader=train_loader, optimizer=joint_optimizer, coefs=coefs)
            joint_lr_scheduler.step()
