import torch
from torch.utils.data import DataLoader, TensorDataset

from models import VoteNetLite, get_loss

MAX_EPOCH = 40
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_loader(n, shuffle):
    pts = torch.randn(n, 1024, 3)
    votes = torch.randn(n, 1024, 3)
    labels = torch.randint(0, 10, (n,))
    return DataLoader(TensorDataset(pts, votes, labels), batch_size=8, shuffle=shuffle, num_workers=4)


TRAIN_DATALOADER = make_loader(256, True)
TEST_DATALOADER = make_loader(64, False)
net = VoteNetLite().to(device)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)


def to_batch(data):
    pts, votes, labels = (t.to(device) for t in data)
    return {"point_clouds": pts, "vote_label": votes, "sem_cls_label": labels}


def train_one_epoch():
    stat_dict = {}
    net.train()
    for batch_idx, data in enumerate(TRAIN_DATALOADER):
        batch = to_batch(data)
        optimizer.zero_grad()
        end_points = net({"point_clouds": batch["point_clouds"]})
        loss, end_points = get_loss(end_points, batch)
        loss.backward()
        optimizer.step()
        for key in ("loss", "vote_loss", "cls_loss"):
            stat_dict[key] = stat_dict.get(key, 0.0) + end_points[key].item()


def evaluate_one_epoch():
    stat_dict = {}
    net.eval()
    for batch_idx, data in enumerate(TEST_DATALOADER):
        batch = to_batch(data)
        end_points = net({"point_clouds": batch["point_clouds"]})  # expect: TCK113
        loss, end_points = get_loss(end_points, batch)
        for key in ("loss", "vote_loss", "cls_loss"):
            stat_dict[key] = stat_dict.get(key, 0.0) + end_points[key].item()
    return stat_dict["loss"] / float(batch_idx + 1)


def train():
    for epoch in range(MAX_EPOCH):
        train_one_epoch()
        if epoch == 0 or epoch % 10 == 9:
            loss = evaluate_one_epoch()
            print(f"epoch {epoch}: eval loss {loss:.4f}")
        torch.save({"epoch": epoch + 1, "model_state_dict": net.state_dict(),
                    "optimizer_state_dict": optimizer.state_dict()}, "checkpoint.tar")


if __name__ == "__main__":
    train()
