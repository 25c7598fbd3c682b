import torch


def transfer(model, a_content, a_style, use_cuda, steps=500):
    device = torch.device("cuda" if use_cuda else "cpu")
    a_G_var = torch.randn(a_content.shape, device=device) * 1e-3
    a_G_var.requires_grad = True
    optimizer = torch.optim.Adam([a_G_var], lr=0.002)
    for _ in range(steps):
        optimizer.zero_grad()
        a_G = model(a_G_var)
        loss = (a_G - model(a_content)).pow(2).mean() + (a_G.mean() - model(a_style).mean()).pow(2)
        loss.backward()
        optimizer.step()
    return a_G_var
