"""The seven models of examples/models in PyTorch, as a user writes them: convolutions in PyTorch's
layouts (NCHW views of ein's NHWC data, filters relaid once), batch normalization in inference
mode, not folded. Each builder takes the tensors bench_models wrote (by ein's names, in ein's
layouts), the model's manifest entry, and gives a function of the input that returns the output
in ein's layout.
"""
import torch
import torch.nn.functional as F

CHANNELS_LAST = torch.channels_last


def conv_filter(k):
    """ein's (r, s, f, c) filter as PyTorch's conv2d weight (f, c, r, s)."""
    return k.permute(2, 3, 0, 1).contiguous(memory_format=CHANNELS_LAST)


def transposed_filter(k):
    """ein's (r, s, f, c) filter as PyTorch's conv_transpose2d weight (c, f, r, s)."""
    return k.permute(3, 2, 0, 1).contiguous(memory_format=CHANNELS_LAST)


def nchw(x):
    """ein's NHWC tensor as the NCHW (channels-last) tensor PyTorch reads: a view, no copy."""
    return x.permute(0, 3, 1, 2)


def nhwc(y):
    return y.permute(0, 2, 3, 1)


def batch_norm(t, name):
    g, b, m, v = (t[name + s] for s in ("_g", "_b", "_m", "_v"))
    return lambda y: F.batch_norm(y, m, v, g, b, training=False, eps=1e-5)


def generator(t, batch_norms):
    """DCGAN's and InfoGAN's generators: five transposed convolutions (the first at stride 1 and
    padding 0, the others at stride 2 and padding 1), each but the last followed by batch
    normalization (DCGAN) and ReLU, tanh last."""
    ks = [transposed_filter(t[f"K{i}"]) for i in range(1, 6)]
    norms = [batch_norm_of(t, i) for i in range(1, 5)] if batch_norms else [lambda y: y] * 4

    def forward(z):
        y = nchw(z)
        for i, k in enumerate(ks):
            y = F.conv_transpose2d(y, k, stride=1 if i == 0 else 2, padding=0 if i == 0 else 1)
            y = torch.tanh(y) if i == 4 else F.relu(norms[i](y))
        return nhwc(y)

    return forward


def batch_norm_of(t, i):
    g, b, m, v = t[f"G{i}"], t[f"B{i}"], t[f"M{i}"], t[f"V{i}"]
    return lambda y: F.batch_norm(y, m, v, g, b, training=False, eps=1e-5)


def fsrcnn(t, entry):
    """A 5×5 convolution, a 1×1 shrinking, four 3×3 mappings and a 1×1 expanding, each with bias
    and PReLU, then a 9×9 transposed convolution at stride 2, padding 4 and output padding 1, with
    bias."""
    layers = [(conv_filter(t[f"K{i}"]), t[f"b{i}"], t[f"p{i}"], t[f"K{i}"].shape[0] // 2) for i in range(1, 8)]
    k8, b8 = transposed_filter(t["K8"]), t["b8"]

    def forward(x):
        y = nchw(x)
        for k, b, p, pad in layers:
            y = F.prelu(F.conv2d(y, k, b, padding=pad), p)
        return nhwc(F.conv_transpose2d(y, k8, b8, stride=2, padding=4, output_padding=1))

    return forward


def csrnet(t, entry):
    """Six 3×3 convolutions at dilation 2 and padding 2, each with bias and ReLU."""
    layers = [(conv_filter(t[f"K{i}"]), t[f"b{i}"]) for i in range(1, 7)]

    def forward(x):
        y = nchw(x)
        for k, b in layers:
            y = F.relu(F.conv2d(y, k, b, padding=2, dilation=2))
        return nhwc(y)

    return forward


def conv_bn(t, name, stride, pad):
    k, norm = conv_filter(t[name + "_k"]), batch_norm(t, name)
    return lambda x: norm(F.conv2d(x, k, stride=stride, padding=pad))


def shortcut(t, name, stride):
    """The 1×1 conv_bn of a block where the shape changes (its filter is then a tensor), else x."""
    return conv_bn(t, name, stride, 0) if name + "_k" in t else (lambda x: x)


def basic_block(t, name):
    stride = 2 if name + "_d_k" in t and t[name + "_a_k"].shape[3] != t[name + "_a_k"].shape[2] else 1
    a, c = conv_bn(t, name + "_a", stride, 1), conv_bn(t, name + "_c", 1, 1)
    d = shortcut(t, name + "_d", stride)
    return lambda x: F.relu(c(F.relu(a(x))) + d(x))


def bottleneck(t, name, stride):
    a, b, c = conv_bn(t, name + "_a", 1, 0), conv_bn(t, name + "_b", stride, 1), conv_bn(t, name + "_c", 1, 0)
    d = shortcut(t, name + "_d", stride)
    return lambda x: F.relu(c(F.relu(b(F.relu(a(x))))) + d(x))


def stem(t):
    conv1 = conv_bn(t, "conv1", 2, 3)
    return lambda x: F.max_pool2d(F.relu(conv1(x)), 3, 2, 1)


def chain(layers):
    def forward(x):
        for layer in layers:
            x = layer(x)
        return x

    return forward


def resnet18(t, entry):
    """A 7×7 stem, 3×3 max pooling, eight basic blocks, global average pooling, a linear layer."""
    body = chain([stem(t)] + [basic_block(t, f"l{s}b{b}") for s in range(1, 5) for b in (1, 2)])
    w, b = t["fc_w"], t["fc_b"]
    return lambda x: F.linear(torch.flatten(F.adaptive_avg_pool2d(body(nchw(x)), 1), 1), w, b)


def stage(t, name):
    """A stage of bottlenecks name1, name2, …: the first at stride 2 unless it is res2."""
    count = sum(1 for k in range(1, 10) if f"{name}{k}_a_k" in t)
    return chain([bottleneck(t, f"{name}{k}", 2 if k == 1 and name != "res2_" else 1) for k in range(1, count + 1)])


def large_kernel(t, name):
    """The sum of a K×1 then 1×K branch and a 1×K then K×1 branch."""
    l1, l2, r1, r2 = (conv_filter(t[f"{name}_{s}"]) for s in ("l1", "l2", "r1", "r2"))
    h = t[name + "_l1"].shape[0] // 2
    return lambda x: (F.conv2d(F.conv2d(x, l1, padding=(h, 0)), l2, padding=(0, h)) +
                      F.conv2d(F.conv2d(x, r1, padding=(0, h)), r2, padding=(h, 0)))


def refine(t, name):
    k1, k2 = conv_filter(t[name + "_k1"]), conv_filter(t[name + "_k2"])
    return lambda x: x + F.conv2d(F.relu(F.conv2d(x, k1, padding=1)), k2, padding=1)


def upsample(t, name):
    k = transposed_filter(t[name + "_k"])
    return lambda x: F.conv_transpose2d(x, k, stride=2, padding=1)


def gcn(t, entry):
    """ResNet-50's stem and four stages, a GCN block and a boundary refinement on each, the coarser
    score upsampled, added and refined stage by stage, then two more upsamplings, each refined."""
    body = stem(t)
    stages = [stage(t, f"res{s}_") for s in range(2, 6)]
    scores = {s: chain([large_kernel(t, f"s{s}_gcn"), refine(t, f"s{s}_br")]) for s in range(2, 6)}
    merges = {m: (upsample(t, f"m{m}_up"), refine(t, f"m{m}_br")) for m in (4, 3, 2)}
    tail = chain([upsample(t, "u1"), refine(t, "u1_br"), upsample(t, "u0"), refine(t, "scores")])

    def forward(x):
        y, features = body(nchw(x)), {}
        for s, run in zip(range(2, 6), stages):
            y = features[s] = run(y)
        score = scores[5](features[5])
        for m in (4, 3, 2):
            up, br = merges[m]
            score = br(up(score) + scores[m](features[m]))
        return nhwc(tail(score))

    return forward


def band(x, half_width, dilation, rows, m0):
    """x[b, h, m + D (w − W), :] for m in [m0, m0 + rows) as a strided view of x padded with zeros
    along m (x: (b, h, m, d), padded: (b, h, m + 2 D W, d))."""
    b, h, _, d = x.shape
    return x.as_strided((b, h, rows, 2 * half_width + 1, d), (x.stride(0), x.stride(1), d, dilation * d, 1),
                        x.storage_offset() + m0 * d)


def longformer(t, entry):
    """One layer: Q/K/V projections split into heads, the dilated band of scores (keys past the
    ends read zero, as in ein's model: no mask), softmax, the band's weighted values, the output
    projection and a two-layer feed-forward, each with a residual add. The band is computed in
    chunks of rows, its keys and values read as strided views, so that eager's materialized
    band stays within about 256 MiB."""
    config = entry["config"]
    heads, half, dilation = config["heads"], config["half_window"], config["dilation"]
    wq, wk, wv, wo, w1, b1, w2, b2 = (t[n] for n in ("Wq", "Wk", "Wv", "Wo", "W1", "b1", "W2", "b2"))

    def forward(x):
        batch, seq, features = x.shape
        dh = features // heads
        split = lambda y: y.view(batch, seq, heads, dh).permute(0, 2, 1, 3)
        q, k, v = split(x @ wq.T), split(x @ wk.T), split(x @ wv.T)
        pad = dilation * half
        kp, vp = F.pad(k, (0, 0, pad, pad)), F.pad(v, (0, 0, pad, pad))
        chunk = max(1, 2**26 // ((2 * half + 1) * dh * batch * heads))
        ctx = []
        for m0 in range(0, seq, chunk):
            rows = min(chunk, seq - m0)
            scores = torch.einsum("bhmk,bhmwk->bhmw", q[:, :, m0:m0 + rows], band(kp, half, dilation, rows, m0))
            p = torch.softmax(scores * (1 / dh**0.5), dim=-1)
            ctx.append(torch.einsum("bhmw,bhmwn->bhmn", p, band(vp, half, dilation, rows, m0)))
        ctx = torch.cat(ctx, 2).permute(0, 2, 1, 3).reshape(batch, seq, features)
        a = x + ctx @ wo.T
        return a + F.linear(F.relu(F.linear(a, w1, b1)), w2, b2)

    return forward


MODELS = {
    "dcgan": lambda t, entry: generator(t, batch_norms=True),
    "infogan": lambda t, entry: generator(t, batch_norms=False),
    "resnet18": resnet18,
    "fsrcnn": fsrcnn,
    "csrnet": csrnet,
    "gcn": gcn,
    "longformer": longformer,
}
