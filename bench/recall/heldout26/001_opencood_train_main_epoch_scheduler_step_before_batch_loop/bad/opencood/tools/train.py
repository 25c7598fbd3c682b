import argparse
import os
import statistics

import torch
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader

import opencood.hypes_yaml.yaml_utils as yaml_utils
from opencood.data_utils.datasets import build_dataset
from opencood.tools import train_utils


def train_parser():
    parser = argparse.ArgumentParser(description="cooperative perception training")
    parser.add_argument("--hypes_yaml", type=str, required=True, help="training configuration file")
    parser.add_argument("--model_dir", default="", help="folder of a run to continue")
    return parser.parse_args()


def main():
    opt = train_parser()
    hypes = yaml_utils.load_yaml(opt.hypes_yaml, opt)

    print("Dataset Building")
    train_set = build_dataset(hypes, visualize=False, train=True)
    val_set = build_dataset(hypes, visualize=False, train=False)
    train_loader = DataLoader(train_set, batch_size=hypes["train_params"]["batch_size"], num_workers=1,
                              collate_fn=train_set.collate_batch_train, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=hypes["train_params"]["batch_size"], num_workers=1,
                            collate_fn=train_set.collate_batch_train, shuffle=False, drop_last=True)

    print("Creating Model")
    model = train_utils.create_model(hypes)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model.to(device)

    criterion = train_utils.create_loss(hypes)
    optimizer = train_utils.setup_optimizer(hypes, model)
    scheduler = train_utils.setup_lr_schedular(hypes, optimizer)

    if opt.model_dir:
        saved_path = opt.model_dir
        init_epoch, model = train_utils.load_saved_model(saved_path, model)
    else:
        init_epoch = 0
        saved_path = train_utils.setup_train(hypes)

    writer = SummaryWriter(saved_path)

    print("Training start")
    epoches = hypes["train_params"]["epoches"]
    for epoch in range(init_epoch, max(epoches, init_epoch)):
        scheduler.step()  # expect: TCK104
        for param_group in optimizer.param_groups:
            print("learning rate %f" % param_group["lr"])

        for i, batch_data in enumerate(train_loader):
            # validation below leaves the model in eval mode, so switch back every batch
            model.train()
            model.zero_grad()
            optimizer.zero_grad()

            batch_data = train_utils.to_device(batch_data, device)
            output_dict = model(batch_data["ego"])
            final_loss = criterion(output_dict, batch_data["ego"]["label_dict"])
            criterion.logging(epoch, i, len(train_loader), writer)

            final_loss.backward()
            optimizer.step()

        if epoch % hypes["train_params"]["eval_freq"] == 0:
            valid_ave_loss = []
            with torch.no_grad():
                for i, batch_data in enumerate(val_loader):
                    model.eval()
                    batch_data = train_utils.to_device(batch_data, device)
                    output_dict = model(batch_data["ego"])
                    final_loss = criterion(output_dict, batch_data["ego"]["label_dict"])
                    valid_ave_loss.append(final_loss.item())
            valid_ave_loss = statistics.mean(valid_ave_loss)
            print("At epoch %d, the validation loss is %f" % (epoch, valid_ave_loss))
            writer.add_scalar("Validate_Loss", valid_ave_loss, epoch)

        if epoch % hypes["train_params"]["save_freq"] == 0:
            torch.save(model.state_dict(), os.path.join(saved_path, "net_epoch%d.pth" % (epoch + 1)))

    print("Training Finished, checkpoints saved to %s" % saved_path)


if __name__ == "__main__":
    main()
