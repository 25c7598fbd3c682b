import torch
import torch.nn as nn

import model
import utils

args = utils.parse_args()
net = model.coRNN(2, args.n_hid, 1, args.dt, args.gamma, args.epsilon).cuda()
objective = nn.MSELoss()
optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)


def test():
    net.eval()
    with torch.no_grad():
        data, label = utils.get_batch(args.T, 1000)
        label = label.unsqueeze(1)
        out = net(data.cuda())
        loss = objective(out, label.cuda())
    return loss.item()


net.train()
for i in range(args.max_steps):
    data, label = utils.get_batch(args.T, args.batch)
    label = label.unsqueeze(1)
    optimizer.zero_grad()
    out = net(data.cuda())
    loss = objective(out, label.cuda())
    loss.backward()
    optimizer.step()
    if i % 100 == 0 and i != 0:
        mse_error = test()  # expect: TCK106
        print(f"step {i}: test mse {mse_error:.5f}")
