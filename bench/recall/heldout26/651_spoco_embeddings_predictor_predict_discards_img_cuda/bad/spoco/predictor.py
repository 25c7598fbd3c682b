import os

import h5py
import numpy as np
import torch
from PIL import Image

from spoco.utils import pca_project


class EmbeddingsPredictor:
    def __init__(self, model, test_loader, output_dir, spoco):
        self.model = model
        self.test_loader = test_loader
        self.output_dir = output_dir
        self.spoco = spoco

    def predict(self):
        # inference only
        self.model.eval()

        with torch.no_grad():
            for t in self.test_loader:
                if self.spoco:
                    img1, img2, path = t
                    # move the batch to the GPU
                    img1.cuda()  # expect: TCK202
                    img2.cuda()  # expect: TCK202
                    emb1, emb2 = self.model(img1, img2)
                    for single_img, single_emb1, single_emb2, single_path in zip(img1, emb1, emb2, path):
                        self.process_single([single_emb1, single_emb2], single_img, single_path)
                else:
                    img, path = t
                    # move the batch to the GPU
                    img.cuda()  # expect: TCK202
                    emb = self.model(img)
                    for single_img, single_emb, single_path in zip(img, emb, path):
                        self.process_single([single_emb], single_img, single_path)

    def process_single(self, emb_arr, img, path):
        base = os.path.splitext(os.path.basename(path))[0]
        out_file = os.path.join(self.output_dir, base + '_predictions.h5')
        for i, emb in enumerate(emb_arr):
            rgb_img = pca_project(np.squeeze(emb.cpu().numpy()))
            Image.fromarray(np.moveaxis(rgb_img, 0, -1)).save(os.path.join(self.output_dir, f'{base}_{i + 1}.png'))

        with h5py.File(out_file, 'w') as f:
            f.create_dataset('raw', data=img.cpu().numpy(), compression='gzip')
            for i, emb in enumerate(emb_arr):
                f.create_dataset(f'embeddings{i + 1}', data=emb.cpu().numpy(), compression='gzip')
