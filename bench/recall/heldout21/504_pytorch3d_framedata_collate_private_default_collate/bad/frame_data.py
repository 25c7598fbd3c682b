from collections import defaultdict
from dataclasses import dataclass, field, fields
from typing import Any, List, Optional

import numpy as np
import torch

from structures import Cameras, PointCloud, join_cameras_as_batch, join_pointclouds_as_batch


@dataclass
class FrameData:
    """One frame of a multi-view sequence; `collate` batches a list of them."""

    frame_number: Optional[torch.Tensor] = None
    sequence_name: Any = ""
    image_rgb: Optional[torch.Tensor] = None
    fg_probability: Optional[torch.Tensor] = None
    depth_map: Optional[torch.Tensor] = None
    camera: Optional[Cameras] = None
    sequence_point_cloud: Optional[PointCloud] = None
    sequence_point_cloud_idx: Optional[List[int]] = None
    meta: dict = field(default_factory=dict)

    @classmethod
    def collate(cls, batch):
        elem = batch[0]

        if isinstance(elem, cls):
            # frames of one sequence share the same point cloud object: keep one copy each
            cloud_ids = [id(el.sequence_point_cloud) for el in batch]
            id_to_idx = defaultdict(list)
            for i, cloud_id in enumerate(cloud_ids):
                id_to_idx[cloud_id].append(i)
            clouds = []
            cloud_idx = -np.ones((len(batch),))
            for i, ind in enumerate(id_to_idx.values()):
                cloud_idx[ind] = i
                clouds.append(batch[ind[0]].sequence_point_cloud)
            overrides = {"sequence_point_cloud": clouds, "sequence_point_cloud_idx": cloud_idx.tolist()}

            collated = {}
            for f in fields(elem):
                if not f.init:
                    continue
                values = overrides.get(f.name, [getattr(d, f.name) for d in batch])
                collated[f.name] = cls.collate(values) if all(v is not None for v in values) else None
            return cls(**collated)

        elif isinstance(elem, PointCloud):
            return join_pointclouds_as_batch(batch)

        elif isinstance(elem, Cameras):
            return join_cameras_as_batch(batch)
        else:
            return torch.utils.data._utils.collate.default_collate(batch)  # expect: TCK907
