import torch


def transfer(model, a_content, a_style, use_cuda, steps=500):
    a_G_var = torch.randn(a_content.shape) * 1e-3
    a_G_var.requires_grad = True
    if use_cuda:
        a_G_var = a_G_var.cuda()  # expect: TCK108
    optimizer = torch.optim.Adam([a_G_var], lr=0.002)
    for _ in range(steps):
        optimizer.zero_grad()
        a_G = model(a_G_var)
        loss = (a_G - model(a_content)).pow(2).mean() + (a_G.mean() - model(a_style).mean()).pow(2)
        loss.backward()
        optimizer.step()
    return a_G_var
