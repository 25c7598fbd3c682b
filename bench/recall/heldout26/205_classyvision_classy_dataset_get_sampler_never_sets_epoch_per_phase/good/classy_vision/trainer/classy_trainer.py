class ClassyTrainer:
    def __init__(self, use_gpu, num_dataloader_workers=4):
        self.use_gpu = use_gpu
        self.num_dataloader_workers = num_dataloader_workers

    def train(self, task):
        task.prepare(num_dataloader_workers=self.num_dataloader_workers, pin_memory=self.use_gpu,
                     use_gpu=self.use_gpu)
        while task.phase_idx + 1 < len(task.phases):
            task.advance_phase()
            total = 0.0
            steps = 0
            while True:
                try:
                    total = total + task.train_step(self.use_gpu)
                    steps += 1
                except StopIteration:
                    break
            print(f"phase {task.phase_idx} ({task.phase_type}): mean loss {float(total) / max(steps, 1):.4f}")
