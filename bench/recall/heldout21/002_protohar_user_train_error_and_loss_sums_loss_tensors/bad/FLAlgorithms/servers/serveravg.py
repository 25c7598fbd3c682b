from FLAlgorithms.servers.serverbase import Server
from FLAlgorithms.users.useravg import UserAVG


class FedAvg(Server):
    def __init__(self, args, model, times, splits):
        super().__init__(args, model, times)
        self.set_clients(args, UserAVG, splits)

    def train(self):
        for glob_iter in range(self.num_glob_iters):
            self.logging.info(f"-------------Round number: {glob_iter} -------------")
            self.evaluate()
            self.selected_users = self.select_users(self.num_users)
            for user in self.selected_users:
                user.train(self.local_epochs)
            self.aggregate_parameters()
            self.send_parameters()
