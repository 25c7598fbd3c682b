import torch
import torch.nn.functional as F

from model import QNetwork

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
onlineQNetwork = QNetwork().to(device)
targetQNetwork = QNetwork().to(device)
targetQNetwork.load_state_dict(onlineQNetwork.state_dict())
optimizer = torch.optim.Adam(onlineQNetwork.parameters(), lr=1e-4)
GAMMA = 0.99


def learn(batch_state, batch_next_state, batch_action, batch_reward, batch_done):
    with torch.no_grad():
        onlineQ_next = onlineQNetwork(batch_next_state)
        targetQ_next = targetQNetwork(batch_next_state)
        online_max_action = torch.argmax(onlineQ_next, dim=1, keepdim=True)
        y = batch_reward + (1 - batch_done) * GAMMA * targetQ_next.gather(1, online_max_action.long())
    loss = F.mse_loss(onlineQNetwork(batch_state).gather(1, batch_action.long()), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
