import copy
import logging

import numpy as np


class Server:
    def __init__(self, args, model, times):
        self.device = args.device
        self.model = copy.deepcopy(model)
        self.num_glob_iters = args.num_global_iters
        self.local_epochs = args.local_epochs
        self.num_users = args.subusers
        self.times = times
        self.users = []
        self.selected_users = []
        self.rs_glob_acc, self.rs_train_acc, self.rs_train_loss = [], [], []
        self.logging = logging.getLogger(__name__)

    def set_clients(self, args, client_cls, splits):
        for user_id, (train_data, test_data) in enumerate(splits):
            self.users.append(client_cls(args, user_id, self.model, train_data, test_data))

    def send_parameters(self):
        for user in self.users:
            user.set_parameters(self.model)

    def aggregate_parameters(self):
        total = sum(user.train_samples for user in self.selected_users)
        for param in self.model.parameters():
            param.data.zero_()
        for user in self.selected_users:
            ratio = user.train_samples / total
            for server_param, user_param in zip(self.model.parameters(), user.model.parameters()):
                server_param.data += user_param.data.clone() * ratio

    def select_users(self, num_users):
        if num_users >= len(self.users):
            return self.users
        idx = np.random.choice(len(self.users), num_users, replace=False)
        return [self.users[i] for i in idx]

    def test(self):
        stats = [user.test() for user in self.users]
        return [s[0] for s in stats], [s[1] for s in stats]

    def train_error_and_loss(self):
        num_samples, tot_correct, losses = [], [], []
        for user in self.users:
            correct, loss, n = user.train_error_and_loss()
            tot_correct.append(correct * 1.0)
            num_samples.append(n)
            losses.append(loss * 1.0)
        return num_samples, tot_correct, losses

    def evaluate(self):
        correct, seen = self.test()
        num_samples, tot_correct, losses = self.train_error_and_loss()
        glob_acc = np.sum(correct) * 1.0 / np.sum(seen)
        train_acc = np.sum(tot_correct) * 1.0 / np.sum(num_samples)
        train_loss = sum(n * l for n, l in zip(num_samples, losses)).item() / np.sum(num_samples)
        self.rs_glob_acc.append(glob_acc)
        self.rs_train_acc.append(train_acc)
        self.rs_train_loss.append(train_loss)
        self.logging.info(f"global acc {glob_acc:.4f} | train acc {train_acc:.4f} | train loss {train_loss:.4f}")
