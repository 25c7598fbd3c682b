"""TCK2xx: devices and host/device traffic."""
