"""TCK6xx: building `nn.Module`s."""
