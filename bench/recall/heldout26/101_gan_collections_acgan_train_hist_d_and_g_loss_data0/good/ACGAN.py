import os
import pickle
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

import utils


class generator(nn.Module):
    """FC1024-BN-ReLU, FC(128*7*7)-BN-ReLU, two transposed convolutions, sigmoid output."""

    def __init__(self, dataset="mnist"):
        super(generator, self).__init__()
        self.input_height = 28
        self.input_width = 28
        self.input_dim = 62 + 10
        self.output_dim = 1
        side = self.input_height // 4
        self.fc = nn.Sequential(
            nn.Linear(self.input_dim, 1024),
            nn.BatchNorm1d(1024),
            nn.ReLU(),
            nn.Linear(1024, 128 * side * side),
            nn.BatchNorm1d(128 * side * side),
            nn.ReLU(),
        )
        self.deconv = nn.Sequential(
            nn.ConvTranspose2d(128, 64, 4, 2, 1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            nn.ConvTranspose2d(64, self.output_dim, 4, 2, 1),
            nn.Sigmoid(),
        )
        utils.initialize_weights(self)

    def forward(self, noise, label):
        x = self.fc(torch.cat([noise, label], 1))
        x = x.view(-1, 128, self.input_height // 4, self.input_width // 4)
        return self.deconv(x)


class discriminator(nn.Module):
    """Two strided convolutions, FC1024, then a real/fake head and a class head."""

    def __init__(self, dataset="mnist"):
        super(discriminator, self).__init__()
        self.input_height = 28
        self.input_width = 28
        self.class_num = 10
        side = self.input_height // 4
        self.conv = nn.Sequential(
            nn.Conv2d(1, 64, 4, 2, 1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(64, 128, 4, 2, 1),
            nn.BatchNorm2d(128),
            nn.LeakyReLU(0.2),
        )
        self.fc1 = nn.Sequential(
            nn.Linear(128 * side * side, 1024),
            nn.BatchNorm1d(1024),
            nn.LeakyReLU(0.2),
        )
        self.dc = nn.Sequential(nn.Linear(1024, 1), nn.Sigmoid())
        self.cl = nn.Sequential(nn.Linear(1024, self.class_num))
        utils.initialize_weights(self)

    def forward(self, image):
        x = self.conv(image)
        x = x.view(-1, 128 * (self.input_height // 4) * (self.input_width // 4))
        x = self.fc1(x)
        return self.dc(x), self.cl(x)


class ACGAN(object):
    def __init__(self, args):
        self.epoch = args.epoch
        self.sample_num = 100
        self.batch_size = args.batch_size
        self.save_dir = args.save_dir
        self.result_dir = args.result_dir
        self.dataset = args.dataset
        self.gpu_mode = args.gpu_mode
        self.model_name = args.gan_type
        self.z_dim = 62
        self.y_dim = 10

        self.G = generator(self.dataset)
        self.D = discriminator(self.dataset)
        self.G_optimizer = optim.Adam(self.G.parameters(), lr=args.lrG, betas=(args.beta1, args.beta2))
        self.D_optimizer = optim.Adam(self.D.parameters(), lr=args.lrD, betas=(args.beta1, args.beta2))

        if self.gpu_mode:
            self.G.cuda()
            self.D.cuda()
            self.BCE_loss = nn.BCELoss().cuda()
            self.CE_loss = nn.CrossEntropyLoss().cuda()
        else:
            self.BCE_loss = nn.BCELoss()
            self.CE_loss = nn.CrossEntropyLoss()

        self.data_X, self.data_Y = utils.load_mnist(args.dataset)

        # fixed noise: one noise vector per row, the ten classes along the row
        sample_z = torch.rand(self.sample_num // self.y_dim, 1, self.z_dim).expand(-1, self.y_dim, -1)
        self.sample_z_ = sample_z.reshape(self.sample_num, self.z_dim).contiguous()
        labels = torch.arange(self.y_dim).repeat(self.sample_num // self.y_dim).unsqueeze(1)
        self.sample_y_ = torch.zeros(self.sample_num, self.y_dim).scatter_(1, labels, 1)
        if self.gpu_mode:
            self.sample_z_, self.sample_y_ = self.sample_z_.cuda(), self.sample_y_.cuda()

    def train(self):
        self.train_hist = {"D_loss": [], "G_loss": [], "per_epoch_time": [], "total_time": []}
        y_real_, y_fake_ = torch.ones(self.batch_size, 1), torch.zeros(self.batch_size, 1)
        if self.gpu_mode:
            y_real_, y_fake_ = y_real_.cuda(), y_fake_.cuda()

        self.D.train()
        print("training start!!")
        start_time = time.time()
        iters_per_epoch = len(self.data_X) // self.batch_size
        for epoch in range(self.epoch):
            self.G.train()
            epoch_start_time = time.time()
            for it in range(iters_per_epoch):
                x_ = self.data_X[it * self.batch_size:(it + 1) * self.batch_size]
                y_vec_ = self.data_Y[it * self.batch_size:(it + 1) * self.batch_size]
                z_ = torch.rand((self.batch_size, self.z_dim))
                if self.gpu_mode:
                    x_, z_, y_vec_ = x_.cuda(), z_.cuda(), y_vec_.cuda()
                x_, z_, y_vec_ = Variable(x_), Variable(z_), Variable(y_vec_)
                labels = torch.max(y_vec_, 1)[1]

                # discriminator: real/fake plus auxiliary classification on both
                self.D_optimizer.zero_grad()
                D_real, C_real = self.D(x_)
                D_real_loss = self.BCE_loss(D_real, y_real_)
                C_real_loss = self.CE_loss(C_real, labels)
                G_ = self.G(z_, y_vec_)
                D_fake, C_fake = self.D(G_)
                D_fake_loss = self.BCE_loss(D_fake, y_fake_)
                C_fake_loss = self.CE_loss(C_fake, labels)
                D_loss = D_real_loss + C_real_loss + D_fake_loss + C_fake_loss
                self.train_hist["D_loss"].append(D_loss.item())
                D_loss.backward()
                self.D_optimizer.step()

                # generator: fool the real/fake head, keep the class recognisable
                self.G_optimizer.zero_grad()
                G_ = self.G(z_, y_vec_)
                D_fake, C_fake = self.D(G_)
                G_loss = self.BCE_loss(D_fake, y_real_)
                C_fake_loss = self.CE_loss(C_fake, labels)
                G_loss += C_fake_loss
                self.train_hist["G_loss"].append(G_loss.item())
                G_loss.backward()
                self.G_optimizer.step()

                if (it + 1) % 100 == 0:
                    print("Epoch: [%2d] [%4d/%4d] D_loss: %.8f, G_loss: %.8f" %
                          (epoch + 1, it + 1, iters_per_epoch, D_loss.item(), G_loss.item()))

            self.train_hist["per_epoch_time"].append(time.time() - epoch_start_time)
            self.visualize_results(epoch + 1)

        self.train_hist["total_time"].append(time.time() - start_time)
        print("Avg one epoch time: %.2f, total %d epochs time: %.2f" % (
            np.mean(self.train_hist["per_epoch_time"]), self.epoch, self.train_hist["total_time"][0]))
        self.save()
        utils.loss_plot(self.train_hist, os.path.join(self.save_dir, self.dataset, self.model_name), self.model_name)

    def visualize_results(self, epoch, fix=True):
        self.G.eval()
        out_dir = os.path.join(self.result_dir, self.dataset, self.model_name)
        os.makedirs(out_dir, exist_ok=True)
        frame = int(np.floor(np.sqrt(self.sample_num)))
        with torch.no_grad():
            if fix:
                samples = self.G(self.sample_z_, self.sample_y_)
            else:
                labels = torch.randint(0, self.y_dim, (self.batch_size, 1))
                sample_y_ = torch.zeros(self.batch_size, self.y_dim).scatter_(1, labels, 1)
                sample_z_ = torch.rand((self.batch_size, self.z_dim))
                if self.gpu_mode:
                    sample_z_, sample_y_ = sample_z_.cuda(), sample_y_.cuda()
                samples = self.G(sample_z_, sample_y_)
        samples = samples.cpu().numpy().transpose(0, 2, 3, 1)
        utils.save_images(samples[:frame * frame], [frame, frame],
                          os.path.join(out_dir, self.model_name + "_epoch%03d.png" % epoch))

    def save(self):
        save_dir = os.path.join(self.save_dir, self.dataset, self.model_name)
        os.makedirs(save_dir, exist_ok=True)
        torch.save(self.G.state_dict(), os.path.join(save_dir, self.model_name + "_G.pkl"))
        torch.save(self.D.state_dict(), os.path.join(save_dir, self.model_name + "_D.pkl"))
        with open(os.path.join(save_dir, self.model_name + "_history.pkl"), "wb") as f:
            pickle.dump(self.train_hist, f)
