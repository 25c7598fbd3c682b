from io import BytesIO

import torch


def default_serialize_torch_model(model) -> bytes:
    filelike = BytesIO()
    torch.save(model.state_dict(), filelike)
    filelike.seek(0)
    return filelike.getvalue()


def default_deserialize_torch_model(model, state_bytes: bytes, device):
    filelike = BytesIO(state_bytes)
    filelike.seek(0)
    model.load_state_dict(torch.load(filelike, map_location=device))  # expect: TCK401
    model.to(device)
    return model
