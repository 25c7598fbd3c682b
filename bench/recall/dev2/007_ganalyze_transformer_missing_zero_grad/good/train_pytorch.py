import torch


def train(generator, assessor, transformer, optimizer, num_samples, batch_size, dim_z, alpha_range, device):
    criterion = torch.nn.MSELoss()
    for batch_start in range(0, num_samples, batch_size):
        z = torch.randn(batch_size, dim_z, device=device)
        alpha = torch.empty(batch_size, 1, device=device).uniform_(-alpha_range, alpha_range)
        with torch.no_grad():
            scores = assessor(generator(z))
        target_scores = torch.clamp(scores + alpha, 0.0, 1.0)
        optimizer.zero_grad()
        z_transformed = transformer(z, alpha)
        transformed_scores = assessor(generator(z_transformed))
        loss = criterion(transformed_scores, target_scores)
        loss.backward()
        optimizer.step()
        if batch_start % (100 * batch_size) == 0:
            print(batch_start, loss.item())
