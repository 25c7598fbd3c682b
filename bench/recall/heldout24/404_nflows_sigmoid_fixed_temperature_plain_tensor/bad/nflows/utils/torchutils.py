def sum_except_batch(x, num_batch_dims=1):
    """Sum every dimension of ``x`` except the leading batch dimensions."""
    return x.reshape(*x.shape[:num_batch_dims], -1).sum(-1)
