import ast

from PIL import Image
import torchvision.transforms as transforms
import torchvision.models as models

resnet18 = models.resnet18(pretrained=True)  # expect: TCK909
alexnet = models.alexnet(pretrained=True)  # expect: TCK909
vgg16 = models.vgg16(pretrained=True)  # expect: TCK909

models = {'resnet': resnet18, 'alexnet': alexnet, 'vgg': vgg16}

# obtain ImageNet labels
with open('imagenet1000_clsid_to_human.txt') as imagenet_classes_file:
    imagenet_classes_dict = ast.literal_eval(imagenet_classes_file.read())


def classifier(img_path, model_name):
    img_pil = Image.open(img_path)

    preprocess = transforms.Compose([
        transforms.Resize(256),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    ])

    img_tensor = preprocess(img_pil)
    img_tensor.unsqueeze_(0)
    img_tensor.requires_grad_(False)

    model = models[model_name]
    model = model.eval()
    output = model(img_tensor)

    pred_idx = output.data.numpy().argmax()
    return imagenet_classes_dict[pred_idx]
