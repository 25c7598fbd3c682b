import argparse
from os import listdir

from classifier import classifier


def get_input_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--dir', type=str, default='pet_images/')
    parser.add_argument('--arch', type=str, default='vgg')
    parser.add_argument('--dogfile', type=str, default='dognames.txt')
    return parser.parse_args()


def classify_images(images_dir, results_dic, model):
    for filename in results_dic:
        label = classifier(images_dir + filename, model).lower().strip()
        results_dic[filename].extend([label, int(results_dic[filename][0] in label)])


def main():
    in_arg = get_input_args()
    results = {}
    for name in listdir(in_arg.dir):
        if not name.startswith('.'):
            results[name] = [' '.join(w for w in name.lower().split('_') if w.isalpha())]
    classify_images(in_arg.dir, results, in_arg.arch)
    correct = sum(v[2] for v in results.values())
    print('%s: %d / %d labels match' % (in_arg.arch, correct, len(results)))


if __name__ == '__main__':
    main()
