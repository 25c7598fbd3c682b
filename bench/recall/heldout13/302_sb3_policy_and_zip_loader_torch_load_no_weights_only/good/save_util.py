import io
import json
import zipfile
from typing import Any, Dict, Tuple

import torch as th


def load_from_zip_file(load_path: str, device: str = "cpu") -> Tuple[Dict[str, Any], Dict[str, Any]]:
    data: Dict[str, Any] = {}
    params: Dict[str, Any] = {}
    with zipfile.ZipFile(load_path) as archive:
        for file_path in archive.namelist():
            if file_path == "data":
                data = json.loads(archive.read(file_path).decode())
            elif file_path.endswith(".pth"):
                with archive.open(file_path, mode="r") as param_file:
                    file_content = io.BytesIO(param_file.read())
                    file_content.seek(0)
                    th_object = th.load(file_content, map_location=device, weights_only=True)
                    params[file_path[: -len(".pth")]] = th_object
    return data, params
