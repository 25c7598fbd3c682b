import numpy as np
import torch
import torch.nn.functional as F
import torch.optim as optim

from ctgan_modules import Discriminator, Generator, pate_votes, weights_init


class PATECTGAN:
    """Differentially private CTGAN: teacher discriminators on disjoint data, a student trained on their noisy votes."""

    def __init__(self, embedding_dim=128, gen_dims=(256, 256), dis_dims=(256, 256), batch_size=500, epochs=300,
                 teacher_iters=5, student_iters=5, noise_multiplier=1e-3, device="cuda"):
        self.embedding_dim, self.gen_dims, self.dis_dims = embedding_dim, gen_dims, dis_dims
        self.batch_size, self.epochs = batch_size, epochs
        self.teacher_iters, self.student_iters = teacher_iters, student_iters
        self.noise_multiplier = noise_multiplier
        self.device = torch.device(device)

    def train(self, data):
        data = torch.as_tensor(np.asarray(data), dtype=torch.float32)
        num_teachers = int(len(data) / 5000) + 1
        partitions = torch.tensor_split(data, num_teachers)
        data_dim = data.shape[1]

        self.generator = Generator(self.embedding_dim, self.gen_dims, data_dim).to(self.device)
        student_disc = Discriminator(data_dim, self.dis_dims).to(self.device)
        student_disc.apply(weights_init)
        teacher_disc = [Discriminator(data_dim, self.dis_dims).to(self.device) for _ in range(num_teachers)]
        for t in teacher_disc:
            t.apply(weights_init)

        optimizerG = optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.9), weight_decay=1e-6)
        optimizerS = optim.Adam(student_disc.parameters(), lr=2e-4, betas=(0.5, 0.9))
        optimizerT = [optim.Adam(t.parameters(), lr=2e-4, betas=(0.5, 0.9)) for t in teacher_disc]

        for epoch in range(self.epochs):
            # train teacher discriminators, each on its own partition
            for _ in range(self.teacher_iters):
                for i in range(num_teachers):
                    idx = torch.randint(0, len(partitions[i]), (self.batch_size,))
                    real = partitions[i][idx].to(self.device)
                    noise = torch.randn(self.batch_size, self.embedding_dim, device=self.device)
                    fake = self.generator(noise)
                    optimizerT[i].zero_grad()
                    y_fake = teacher_disc[i](fake.detach())
                    y_real = teacher_disc[i](real)
                    loss_t = F.binary_cross_entropy_with_logits(y_fake, torch.zeros_like(y_fake)) \
                        + F.binary_cross_entropy_with_logits(y_real, torch.ones_like(y_real))
                    loss_t.backward()
                    optimizerT[i].step()

            # train the student discriminator on the teachers' noisy votes
            for _ in range(self.student_iters):
                noise = torch.randn(self.batch_size, self.embedding_dim, device=self.device)
                fake_data = self.generator(noise)
                predictions = pate_votes(fake_data, teacher_disc, self.noise_multiplier)
                output = student_disc(fake_data.detach())
                loss_s = F.binary_cross_entropy_with_logits(output, predictions)
                loss_s.backward()
                optimizerS.step()  # expect: TCK102

            # train the generator against the student
            noise = torch.randn(self.batch_size, self.embedding_dim, device=self.device)
            y_fake = student_disc(self.generator(noise))
            loss_g = -torch.mean(y_fake)
            optimizerG.zero_grad()
            loss_g.backward()
            optimizerG.step()
        return self

    @torch.no_grad()
    def generate(self, n):
        self.generator.eval()
        noise = torch.randn(n, self.embedding_dim, device=self.device)
        return self.generator(noise).cpu().numpy()
