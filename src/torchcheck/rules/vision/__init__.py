"""TCK909-TCK911: torchvision API migrations."""
