"""PyTorch definitions of AlexNet, VGG-16 and ResNet-18, layer for layer as torchvision defines them
(there is no CPU torchvision wheel here). Weights are random (seeded); tuning does not depend on them."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


class AlexNet(nn.Module):
    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=0.5), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=0.5), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


_VGG16 = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]


class VGG16(nn.Module):
    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        c = 3
        for v in _VGG16:
            if v == "M":
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            else:
                layers += [nn.Conv2d(c, int(v), kernel_size=3, padding=1), nn.ReLU(inplace=True)]
                c = int(v)
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample: nn.Module | None = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        stages = []
        c = 64
        for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            stages.append(nn.Sequential(BasicBlock(c, planes, stride), BasicBlock(planes, planes, 1)))
            c = planes
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def _conv_bn_stack(net: nn.Module, classes: int) -> None:
    """A corpus net's layers from its ``CONVS`` rows: conv (no bias, "same" padding) + batch norm per row,
    then a dense layer from the last conv's channels to ``classes``."""
    net.convs = nn.ModuleList(nn.Conv2d(i, o, k, s, k // 2, bias=False) for i, o, k, s, _ in net.CONVS)
    net.bns = nn.ModuleList(nn.BatchNorm2d(o) for _, o, *_ in net.CONVS)
    net.fc = nn.Linear(net.CONVS[-1][1], classes)


class CorpusNet(nn.Module):
    """The convolutions of the pretrained corpus (``tensortune corpus build``): a 7x7/2 stem on RGB,
    3x3 (stride 1 and 2), 1x1 (stride 1 and 2) and 5x5/2 convolutions with batch norm, ReLU and one
    residual add, at 80, 40, 20, 10 and 5 pixels and 32 to 640 channels (multiples of 16, so every
    conv runs blocked), and a 640 x 500 dense layer. No shape of it is a shape of AlexNet, VGG-16 or
    ResNet-18 (nor of the evaluation layers L1-L8, which are theirs). Input 1 x 3 x 160 x 160."""

    input_shape = (1, 3, 160, 160)
    #          in,  out, kernel, stride, input size
    CONVS = [(3, 32, 7, 2, 160), (32, 48, 3, 1, 80), (48, 96, 3, 2, 80), (96, 96, 1, 1, 40), (96, 96, 3, 1, 40),
             (96, 160, 5, 2, 40), (160, 160, 3, 1, 20), (160, 320, 1, 2, 20), (320, 320, 3, 1, 10),
             (320, 640, 3, 2, 10), (640, 640, 1, 1, 5)]

    def __init__(self) -> None:
        super().__init__()
        _conv_bn_stack(self, 500)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, (conv, bn) in enumerate(zip(self.convs, self.bns, strict=True)):
            y = bn(conv(x))
            x = torch.relu(y + x) if i == 4 else torch.relu(y)  # 3x3 96->96 at 40: a residual block
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class CorpusWideNet(nn.Module):
    """The large-spatial half of the pretrained corpus: plain 3x3 convolutions (stride 1, batch norm,
    ReLU) in pairs at 192, 96, 48, 24 and 12 pixels with 32 to 384 channels, a 2x2 max pool between
    the stages, and a 384 x 100 dense layer: the kind of layers VGG-style networks spend their time in,
    where :class:`CorpusNet` (80 pixels at most) has nothing. No shape of it is a shape of AlexNet,
    VGG-16, ResNet-18 or L1-L8 (their channels are 64-512 at 224, 112, 56, 28, 14 pixels). Input
    1 x 3 x 192 x 192; about 7.7 GFLOP."""

    input_shape = (1, 3, 192, 192)
    #          in,  out, kernel, stride, input size
    CONVS = [(3, 32, 3, 1, 192), (32, 32, 3, 1, 192), (32, 96, 3, 1, 96), (96, 96, 3, 1, 96), (96, 192, 3, 1, 48),
             (192, 192, 3, 1, 48), (192, 384, 3, 1, 24), (384, 384, 3, 1, 24), (384, 384, 3, 1, 12)]
    POOL_AFTER = (1, 3, 5, 7)

    def __init__(self) -> None:
        super().__init__()
        _conv_bn_stack(self, 100)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, (conv, bn) in enumerate(zip(self.convs, self.bns, strict=True)):
            x = torch.relu(bn(conv(x)))
            if i in self.POOL_AFTER:
                x = nn.functional.max_pool2d(x, 2)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class CorpusMlp(nn.Module):
    """The dense layers of the pretrained corpus (stop 78): 16384 -> 3072 -> 3072 -> 640, bias and ReLU between
    them, at batch 1, as a classifier head's matrix-vector products stream their weights (201, 38 and 8 MB) from
    memory. Each of VGG-16's and AlexNet's dense layers (25088 or 9216 -> 4096 -> 4096 -> 1000) has one of them at
    shape similarity exp(-d^2/8) of 0.81-0.88, where the corpus nets' small heads (640 x 500, 384 x 100) give at most
    0.07; no shape of it is one of theirs or ResNet-18's. Input 1 x 16384."""

    input_shape = (1, 16384)
    LAYERS = [(16384, 3072), (3072, 3072), (3072, 640)]

    def __init__(self) -> None:
        super().__init__()
        self.fcs = nn.ModuleList(nn.Linear(i, o) for i, o in self.LAYERS)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, fc in enumerate(self.fcs):
            x = fc(x)
            if i < len(self.fcs) - 1:
                x = torch.relu(x)
        return x


BUILTIN: dict[str, Callable[[], nn.Module]] = {"alexnet": AlexNet, "vgg16": VGG16, "resnet18": ResNet18}


def randomize_batchnorm(model: nn.Module, seed: int = 0) -> None:
    """Give BatchNorm layers non-trivial running statistics, so a fused schedule that drops or
    misapplies them would fail the output check (fresh ones are the identity)."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=g) * 0.1)
