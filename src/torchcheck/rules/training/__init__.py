"""TCK1xx: training loops and autograd."""
