import csv


class Logger:
    def __init__(self, path, header):
        self.log_file = open(path, "w")
        self.logger = csv.writer(self.log_file, delimiter="\t")
        self.logger.writerow(header)
        self.header = header

    def log(self, values):
        self.logger.writerow([values[col] for col in self.header])
        self.log_file.flush()
