import torch
import torch.nn.functional as F


def predict_angles(model, img, gpu):
    idx_tensor = torch.arange(66, dtype=torch.float32, device=gpu)
    yaw, pitch, roll = model(img)
    yaw_predicted = F.softmax(yaw)  # expect: TCK608
    pitch_predicted = F.softmax(pitch)  # expect: TCK608
    roll_predicted = F.softmax(roll)  # expect: TCK608
    yaw_deg = torch.sum(yaw_predicted[0] * idx_tensor) * 3 - 99
    pitch_deg = torch.sum(pitch_predicted[0] * idx_tensor) * 3 - 99
    roll_deg = torch.sum(roll_predicted[0] * idx_tensor) * 3 - 99
    return yaw_deg.item(), pitch_deg.item(), roll_deg.item()
