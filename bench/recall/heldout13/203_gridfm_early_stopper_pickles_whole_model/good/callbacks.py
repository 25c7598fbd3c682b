import torch


class EarlyStopper:
    def __init__(self, saving_path, patience=5, tol=0.0, min_validation_loss=float("inf")):
        self.patience = patience
        self.tol = tol
        self.counter = 0
        self.min_validation_loss = min_validation_loss
        self.saving_path = saving_path

    def early_stop(self, validation_loss, model):
        if validation_loss < self.min_validation_loss:
            self.min_validation_loss = validation_loss
            self.counter = 0
            # keep the best model seen so far
            torch.save(model.state_dict(), self.saving_path)
        elif validation_loss > self.min_validation_loss + self.tol:
            self.counter += 1
            if self.patience != -1 and self.counter > self.patience:
                print(f"Early stopping after {self.counter} epochs without improvement.")
                return True
        return False
