"""Small models of the families on-device apps run besides classifiers (issue 48): sequence
(LSTM, GRU, RNN and their cells), audio (Conv1d nets), image to image (super-resolution, style
transfer, UNet), video (3-D convolutions and pools), text (issue 47: token ids, padding masks,
nn.TransformerEncoder and nn.MultiheadAttention), warping and resampling (grid_sample, fold), and
models that make tensors of their own. Random weights, seeded; each with one input. make_models.py writes them scripted
and traced, with torch's outputs; the device run writes the same with torch 2.x.

    FAMILIES[name]() -> (module in eval mode, input tensor)
"""
from typing import Dict, List, Tuple

import torch
from torch import nn


class SequenceTagger(nn.Module):
    """A 2-layer bidirectional LSTM over batch-first sequences, with a projection layer and a
    linear head; returns the tags and the final states."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True)
        self.proj = nn.LSTM(32, 12, proj_size=6)
        self.head = nn.Linear(6, 5)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        y, _ = self.proj(out.transpose(0, 1))
        return self.head(y).transpose(0, 1), h, c


class Recurrent(nn.Module):
    """GRU, then a bidirectional ReLU RNN with an initial state, then an LSTMCell and a GRUCell
    stepped in a loop over time (a decoder's pattern)."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 12, num_layers=2)
        self.rnn = nn.RNN(12, 6, nonlinearity="relu", bidirectional=True)
        self.h0 = nn.Parameter(torch.randn(2, 1, 6) * 0.5)
        self.cell = nn.LSTMCell(12, 10)
        self.gcell = nn.GRUCell(10, 4)

    def forward(self, x):
        y, h = self.gru(x)
        z, hz = self.rnn(y, self.h0.expand(2, x.size(1), 6).contiguous())
        hc = torch.zeros(x.size(1), 10)
        cc = torch.zeros(x.size(1), 10)
        outs: List[torch.Tensor] = []
        for t in range(y.size(0)):
            hc, cc = self.cell(y[t], (hc, cc))
            outs.append(self.gcell(hc))
        return z, h, hz, hc, torch.stack(outs, 0)


class Audio1d(nn.Module):
    """A Conv1d net as speech models start: a strided wide first layer with GroupNorm and GELU
    (wav2vec2's feature encoder), 'same' and reflection padding, groups and dilation, batch norm,
    max and average pools, PReLU, then adaptive pooling to a fixed length and a classifier."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1, 16, 10, stride=5, bias=False), nn.GroupNorm(16, 16), nn.GELU(),
            nn.Conv1d(16, 32, 3, stride=2, padding=1), nn.GroupNorm(4, 32), nn.LeakyReLU(0.1),
            nn.Conv1d(32, 32, 4, padding="same", groups=4, dilation=2), nn.BatchNorm1d(32), nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(32, 24, 5, padding=2, padding_mode="reflect"), nn.PReLU(24),
            nn.AvgPool1d(3, stride=2, padding=1),
            nn.Conv1d(24, 24, 3, padding=1, padding_mode="replicate"), nn.ELU(),
            nn.AdaptiveAvgPool1d(4))
        self.classifier = nn.Linear(96, 7)

    def forward(self, x):
        f = self.encoder(x)
        return self.classifier(torch.flatten(f, 1)), nn.functional.adaptive_max_pool1d(f, 2)


class SuperResolution(nn.Module):
    """ESPCN: convolutions with tanh, then a sub-pixel convolution (pixel_shuffle); the input's
    own detail through pixel_unshuffle and back, and a flip for test-time augmentation."""

    def __init__(self, r=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 16, 5, padding=2), nn.Tanh(), nn.Conv2d(16, 8, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(8, r * r, 3, padding=1), nn.PixelShuffle(r))
        self.skip = nn.Sequential(nn.PixelUnshuffle(2), nn.Conv2d(4, 4 * r * r, 1), nn.PixelShuffle(r),
                                  nn.PixelShuffle(2))

    def forward(self, x):
        y = self.body(x) + self.skip(x)
        return (y + torch.flip(self.body(torch.flip(x, [3])), [3])) * 0.5


class ResidualIN(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.block = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c, affine=True), nn.ReLU(),
                                   nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c, affine=True))

    def forward(self, x):
        return x + self.block(x)


class StyleTransfer(nn.Module):
    """Johnson et al.'s transformer net, narrow: reflection pads, instance norm, strided and
    transposed convolutions, nearest and bilinear upsampling, replication padding."""

    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.ReflectionPad2d(4), nn.Conv2d(3, 8, 9), nn.InstanceNorm2d(8, affine=True), nn.ReLU(),
                                  nn.ReflectionPad2d(1), nn.Conv2d(8, 16, 3, stride=2), nn.InstanceNorm2d(16), nn.ReLU())
        self.res = nn.Sequential(ResidualIN(16), ResidualIN(16))
        self.up = nn.Sequential(nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1),
                                nn.InstanceNorm2d(8, affine=True, track_running_stats=True), nn.ReLU(),
                                nn.Upsample(scale_factor=2, mode="nearest"), nn.ReplicationPad2d(1), nn.Conv2d(8, 8, 3),
                                nn.SELU(), nn.ReflectionPad2d(4), nn.Conv2d(8, 3, 9))
        with torch.no_grad():  # running statistics that are not 0 and 1
            self.up[1].running_mean.uniform_(-0.5, 0.5)
            self.up[1].running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = self.up(self.res(self.down(x)))
        return torch.sigmoid(nn.functional.interpolate(y, scale_factor=0.5, mode="bilinear", align_corners=False))


class UNet(nn.Module):
    """A two-level UNet: batch-normed conv blocks, max pooling, transposed-convolution and
    bilinear upsampling, skip connections by cat, and a 1x1 head."""

    def __init__(self):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                                 nn.Conv2d(o, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = block(32, 16)
        self.dec1 = block(16 + 8, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        m = self.mid(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        up1 = nn.functional.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=True)
        return self.head(self.dec1(torch.cat([up1, e1], 1)))


class Video(nn.Module):
    """A small video classifier as torchvision's r3d_18 / r2plus1d_18 are built: a strided 3-D
    stem, a (2+1)D block (spatial then temporal convolution), BatchNorm3d, 3-D max and average
    pooling, adaptive pooling to one value, a linear head."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, 8, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False), nn.BatchNorm3d(8), nn.ReLU(),
            nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(8, 8, (1, 3, 3), padding=(0, 1, 1), bias=False), nn.BatchNorm3d(8), nn.ReLU(),
            nn.Conv3d(8, 16, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0)), nn.ReLU(),
            nn.AvgPool3d(2, ceil_mode=True), nn.AdaptiveAvgPool3d(1))
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


class TextEncoder(nn.Module):
    """A BERT-like encoder over int64 token ids with 0 as padding: token and position embeddings
    (position ids made in the model by torch.arange), nn.TransformerEncoder with the padding mask
    (torch's nested-tensor fast path), a per-token head."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(50, 16)
        self.pos = nn.Embedding(12, 16)
        layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(16, 5)

    def forward(self, ids):
        mask = ids == 0
        pos = torch.arange(ids.size(1)).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        # Padded positions zeroed, as torch's nested fast path leaves them (a traced copy takes
        # the dense path, which computes them).
        y = self.enc(x, src_key_padding_mask=mask).masked_fill(mask.unsqueeze(-1), 0.0)
        return self.head(y)


class MaskedAttention(nn.Module):
    """nn.MultiheadAttention with a bool key padding mask (rows of zeros in the input are
    padding) and a causal bool mask, returning its averaged weights too, then a norm_first GELU
    encoder layer with the padding mask (torch's _transformer_encoder_layer_fwd)."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.layer = nn.TransformerEncoderLayer(16, 2, 24, dropout=0.0, activation="gelu", batch_first=True,
                                                norm_first=True)

    def forward(self, x):
        pad = x.abs().sum(-1) == 0
        steps = torch.arange(x.size(1))
        causal = steps.unsqueeze(0) > steps.unsqueeze(1)
        y, w = self.attn(x, x, x, key_padding_mask=pad, attn_mask=causal)
        return self.layer(y, src_key_padding_mask=pad), w


class ModernBlocks(nn.Module):
    """The blocks of today's classifiers, narrow: an EfficientNet MBConv (SiLU, a squeeze-and-
    excitation block of global pooling, SiLU, sigmoid and a broadcast multiply), a MobileNetV3
    block (hardswish, hardsigmoid gate), a ConvNeXt block (7x7 depthwise, LayerNorm over channels
    through permutes, linear, GELU, linear, a [C, 1, 1] layer scale) and a LayerNorm2d
    downsampling, then a head with tanh-approximated GELU. Exercises the activation and
    layer-scale fusions (issue 46)."""

    def __init__(self):
        super().__init__()
        c = 16
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, 2, 1, bias=False), nn.BatchNorm2d(c), nn.SiLU())
        self.expand = nn.Sequential(nn.Conv2d(c, 4 * c, 1, bias=False), nn.BatchNorm2d(4 * c), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(4 * c, 4 * c, 5, padding=2, groups=4 * c, bias=False), nn.BatchNorm2d(4 * c),
                                nn.SiLU())
        self.se_reduce = nn.Conv2d(4 * c, 4, 1)
        self.se_expand = nn.Conv2d(4, 4 * c, 1)
        self.project = nn.Sequential(nn.Conv2d(4 * c, c, 1, bias=False), nn.BatchNorm2d(c))
        self.v3 = nn.Sequential(nn.Conv2d(c, 2 * c, 1), nn.Hardswish(), nn.Conv2d(2 * c, 2 * c, 3, padding=1,
                                                                                  groups=2 * c), nn.Hardswish())
        self.gate = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(2 * c, 2 * c, 1), nn.Hardsigmoid())
        self.cn_dw = nn.Conv2d(2 * c, 2 * c, 7, padding=3, groups=2 * c)
        self.cn_norm = nn.LayerNorm(2 * c, eps=1e-6)
        self.cn_fc1 = nn.Linear(2 * c, 8 * c)
        self.cn_fc2 = nn.Linear(8 * c, 2 * c)
        self.layer_scale = nn.Parameter(torch.rand(2 * c, 1, 1) + 0.5)
        self.down_norm = nn.LayerNorm(2 * c, eps=1e-6)
        self.down = nn.Conv2d(2 * c, 4 * c, 2, stride=2)
        self.head = nn.Linear(4 * c, 10)

    def forward(self, x):
        x = self.stem(x)
        y = self.dw(self.expand(x))
        s = torch.sigmoid(self.se_expand(nn.functional.silu(self.se_reduce(nn.functional.adaptive_avg_pool2d(y, 1)))))
        x = x + self.project(y * s)
        x = self.v3(x)
        x = x * self.gate(x)
        y = self.cn_dw(x).permute(0, 2, 3, 1)
        y = self.cn_fc2(nn.functional.gelu(self.cn_fc1(self.cn_norm(y)))).permute(0, 3, 1, 2)
        x = x + self.layer_scale * y
        x = self.down(self.down_norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2))
        return nn.functional.gelu(self.head(x.mean((2, 3))), approximate="tanh")


class Geometry(nn.Module):
    """Warping and resampling as spatial-transformer, registration and restoration nets do:
    F.affine_grid from a predicted theta and grid_sample (bilinear with border padding, bicubic
    with reflection), bicubic and nearest-exact resizing, F.unfold / F.fold (overlapping patches
    summed back), rot90, a 3-D transposed convolution over a stack of the features, and norms
    (F.normalize, logsumexp, cosine similarity) in the head."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Conv2d(3, 6, 3, padding=1)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.up3d = nn.ConvTranspose3d(4, 2, (2, 3, 3), stride=(2, 1, 1), padding=(0, 1, 1))
        self.head = nn.Linear(2, 5)

    def forward(self, x):
        theta = torch.tanh(self.loc(x).mean((2, 3))).reshape(-1, 2, 3) * 0.2
        theta = theta + torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        grid = nn.functional.affine_grid(theta, [x.size(0), x.size(1), 12, 10], align_corners=False)
        warped = nn.functional.grid_sample(x, grid, padding_mode="border", align_corners=False)
        wiggle = nn.functional.grid_sample(x, torch.tanh(grid * 1.7), mode="bicubic", padding_mode="reflection",
                                           align_corners=True)
        y = nn.functional.interpolate(warped + wiggle, scale_factor=1.5, mode="bicubic", align_corners=False)
        y = nn.functional.interpolate(y, size=(16, 14), mode="nearest-exact")
        patches = nn.functional.unfold(y, 3, padding=1, stride=2)
        y = nn.functional.fold(patches * 0.5, (16, 14), 3, padding=1, stride=2)
        y = torch.rot90(self.conv(y), 1, [2, 3])
        v = self.up3d(torch.stack([y, y.flip(3)], 2))  # (N, 2, 4, 14, 16)
        f = nn.functional.normalize(v.mean((2, 3)), dim=1)  # (N, 2, 16)
        score = torch.logsumexp(f, dim=2) + nn.functional.cosine_similarity(f[:, 0], f[:, 1], dim=1).unsqueeze(1)
        return self.head(score), v


class MadeTensors(nn.Module):
    """Tensors the model makes on the CPU meeting its input's (on Vulkan when tvk runs it
    there): torch.arange position ids made float, sinusoidal encodings from arange and exp, a
    torch.tensor constant, linspace, eye, triu masks, a count of non-zeros, and integer ranges
    added to float data; a dict of results merged as torchvision's detectors merge their losses
    (update, setdefault, pop, copy, clear)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        n, d = x.size(1), x.size(2)
        pos = torch.arange(n).float().unsqueeze(1)
        freq = torch.exp(torch.arange(0, d, 2).float() * (-4.0 / d))
        enc = torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], 1)
        y = self.proj(x + enc) * torch.tensor([0.5, 1.0, 1.5, 2.0, 0.5, 1.0, 1.5, 2.0])
        y = y + torch.linspace(-1.0, 1.0, d) + torch.arange(d, dtype=torch.int32)
        scores = torch.matmul(y, y.transpose(1, 2)) / 8.0
        scores = scores.masked_fill(torch.triu(torch.ones(n, n), 1) > 0, -1e4)
        attn = torch.softmax(scores, -1) + torch.eye(n) * 0.1
        kept = torch.count_nonzero(x > 0, 2).float()
        stats: Dict[str, torch.Tensor] = {"a": kept}
        stats.update({"b": kept * 2.0})
        stats.setdefault("c", kept + 1.0)
        first = stats.pop("a")
        spare = stats.copy()
        spare.clear()
        return torch.matmul(attn, y), (first + stats["b"] + stats["c"] + float(len(spare))) / d


def _token_ids(shape, lengths, seed=1):
    ids = torch.randint(1, 50, shape, generator=torch.Generator().manual_seed(seed))
    for row, n in enumerate(lengths):
        ids[row, n:] = 0
    return ids


def _padded(shape, lengths, seed=1):
    x = _input(shape, seed)
    for row, n in enumerate(lengths):
        x[row, n:] = 0
    return x


def _randomize_norm_stats(model, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
                m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
    return model


def _input(shape, seed=1):
    return torch.rand(shape, generator=torch.Generator().manual_seed(seed)) * 2 - 1


FAMILIES = {
    "lstm_tagger": lambda: (SequenceTagger().eval(), _input((2, 7, 8))),
    "recurrent": lambda: (Recurrent().eval(), _input((5, 3, 8))),
    "audio1d": lambda: (_randomize_norm_stats(Audio1d(), 5).eval(), _input((2, 1, 400))),
    "super_resolution": lambda: (SuperResolution().eval(), _input((1, 1, 12, 10))),
    "style_transfer": lambda: (StyleTransfer().eval(), _input((1, 3, 32, 28))),
    "unet": lambda: (_randomize_norm_stats(UNet(), 6).eval(), _input((1, 3, 32, 32))),
    "video": lambda: (_randomize_norm_stats(Video(), 7).eval(), _input((1, 3, 8, 32, 32))),
    "text_encoder": lambda: (TextEncoder().eval(), _token_ids((3, 9), [9, 6, 3])),
    "masked_attention": lambda: (MaskedAttention().eval(), _padded((2, 7, 16), [7, 5])),
    "modern_blocks": lambda: (_randomize_norm_stats(ModernBlocks(), 8).eval(), _input((2, 3, 32, 32))),
    "geometry": lambda: (Geometry().eval(), _input((2, 3, 9, 11))),
    "made_tensors": lambda: (MadeTensors().eval(), _input((2, 6, 8))),
}


def outputs(model, x) -> Tuple[torch.Tensor, ...]:
    with torch.no_grad():
        y = model(x)
    return tuple(y) if isinstance(y, (tuple, list)) else (y,)
