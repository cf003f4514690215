import numpy as np
import torch
from spconv.pytorch.utils import PointToVoxel
from torch.utils.data import DataLoader, Dataset


class LidarSweeps(Dataset):
    def __init__(self, files):
        self.files = files
        self.voxelizer = PointToVoxel(
            vsize_xyz=[0.1, 0.1, 0.2], coors_range_xyz=[-50, -50, -3, 50, 50, 1],
            num_point_features=4, max_num_voxels=60000, max_num_points_per_voxel=5,
            device=torch.device("cpu"))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        points = torch.from_numpy(np.fromfile(self.files[idx], dtype=np.float32).reshape(-1, 4))
        voxels, coords, counts = self.voxelizer(points)
        return voxels, coords, counts


def train(files, model):
    model = model.cuda()
    loader = DataLoader(LidarSweeps(files), batch_size=1, num_workers=4)
    for voxels, coords, counts in loader:
        model(voxels.cuda(), coords.cuda()).sum().backward()
