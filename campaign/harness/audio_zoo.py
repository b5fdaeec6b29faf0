"""torchaudio's architectures for `convfail test run --source torchaudio` (Debian's
python3-torchaudio 0.13.1): every factory that builds offline with random weights, and the model
classes that have no factory built with their published sizes. Nothing is downloaded (no
pretrained weights, no pipeline bundle): the sandbox has no network.

Each entry: name -> make, where make() returns the module and a function inputs(g) giving one tuple
of inputs drawn from the torch.Generator g: waveforms of a fixed length (1 s), features or
spectrograms of a fixed number of frames, token ids within the vocabulary.
"""

SECOND_16K = 16000  # wav2vec2 / HuBERT / Wav2Letter: 1 s at 16 kHz
SECOND_8K = 8000  # ConvTasNet (Libri2Mix, 8 kHz)
SECOND_44K = 44100  # HDemucs (music, stereo 44.1 kHz)


def _ta():
    import torchaudio.models as m
    return m


def _wave(g, *shape):
    import torch
    return torch.rand(shape, generator=g) * 2 - 1


def _ints(g, high, *shape):
    import torch
    return torch.randint(0, high, shape, generator=g, dtype=torch.int64)


def _waveform_model(factory):
    return lambda: (getattr(_ta(), factory)(), lambda g: (_wave(g, 1, SECOND_16K),))


def _hubert_pretrain(factory, classes):
    # labels: one k-means cluster id per 20 ms frame of the 1 s waveform (49 frames)
    return lambda: (getattr(_ta(), factory)(),
                    lambda g: (_wave(g, 1, SECOND_16K), _ints(g, classes, 1, 49)))


def _hdemucs(factory):
    return lambda: (getattr(_ta(), factory)(sources=["drums", "bass", "other", "vocals"]),
                    lambda g: (_wave(g, 1, 2, SECOND_44K),))


def _conformer():
    # Conformer (S) of Gulati et al. 2020: 16 layers of 144, 4 heads, feed-forward 576, kernel
    # 31 (torchaudio takes odd kernels only); 100 frames of 144 features after subsampling.
    import torch
    model = _ta().Conformer(input_dim=144, num_heads=4, ffn_dim=576, num_layers=16,
                            depthwise_conv_kernel_size=31)
    return model, lambda g: (torch.rand((1, 100, 144), generator=g), torch.tensor([100]))


def _emformer_rnnt():
    # The LibriSpeech Emformer RNN-T (4097 symbols): 80 log-mel features, 128 frames plus the
    # right context it looks ahead (4 frames x the time reduction stride 4), 20 target tokens.
    import torch
    model = _ta().emformer_rnnt_base(num_symbols=4097)
    frames = 128 + 16
    return model, lambda g: (torch.rand((1, frames, 80), generator=g), torch.tensor([frames]),
                             _ints(g, 4096, 1, 20), torch.tensor([20]))


def _tacotron2():
    # Published LJSpeech sizes (the class defaults), teacher-forced: 50 symbols of 148, 100 mel
    # frames of 80 bins.
    import torch
    return _ta().Tacotron2(), lambda g: (_ints(g, 148, 1, 50), torch.tensor([50]),
                                         torch.rand((1, 80, 100), generator=g), torch.tensor([100]))


def _wavernn():
    # torchaudio's WaveRNN LJSpeech vocoder sizes (upsampling 5x5x11 = hop 275, 8-bit classes,
    # 80 mel bins): 10 spectrogram frames and the waveform they cover.
    import torch
    model = _ta().WaveRNN(upsample_scales=[5, 5, 11], n_classes=256, hop_length=275, n_freq=80)
    frames = 10
    return model, lambda g: (_wave(g, 1, 1, (frames - 5 + 1) * 275),
                             torch.rand((1, 1, 80, frames), generator=g))


def _wav2letter():
    return _ta().Wav2Letter(num_classes=40, input_type="waveform", num_features=1), \
        lambda g: (_wave(g, 1, 1, SECOND_16K),)


def _deepspeech():
    # Deep Speech (Hannun et al. 2014): 2048 hidden units over 161-bin spectrograms, 100 frames.
    import torch
    return _ta().DeepSpeech(n_feature=161, n_hidden=2048, n_class=40), \
        lambda g: (torch.rand((1, 1, 100, 161), generator=g),)


def _conv_tasnet():
    return _ta().conv_tasnet_base(num_sources=2), lambda g: (_wave(g, 1, 1, SECOND_8K),)


ZOO = {
    "wav2vec2_base": _waveform_model("wav2vec2_base"),
    "wav2vec2_large": _waveform_model("wav2vec2_large"),
    "wav2vec2_large_lv60k": _waveform_model("wav2vec2_large_lv60k"),
    "hubert_base": _waveform_model("hubert_base"),
    "hubert_large": _waveform_model("hubert_large"),
    "hubert_xlarge": _waveform_model("hubert_xlarge"),
    "hubert_pretrain_base": _hubert_pretrain("hubert_pretrain_base", 100),
    "hubert_pretrain_large": _hubert_pretrain("hubert_pretrain_large", 500),
    "hubert_pretrain_xlarge": _hubert_pretrain("hubert_pretrain_xlarge", 500),
    "conformer": _conformer,
    "emformer_rnnt_base": _emformer_rnnt,
    "conv_tasnet_base": _conv_tasnet,
    "hdemucs_low": _hdemucs("hdemucs_low"),
    "hdemucs_medium": _hdemucs("hdemucs_medium"),
    "hdemucs_high": _hdemucs("hdemucs_high"),
    "tacotron2": _tacotron2,
    "wavernn": _wavernn,
    "wav2letter": _wav2letter,
    "deepspeech": _deepspeech,
}

def models():
    return [{"name": n, "family": "audio"} for n in sorted(ZOO)]


def build(name, sets, seed):
    """The module in eval mode and `sets` input tuples (fixed seed), or raises KeyError."""
    import torch
    make = ZOO[name]
    torch.manual_seed(seed)
    model, inputs = make()
    model = model.eval()
    g = torch.Generator().manual_seed(seed)
    return model, [inputs(g) for _ in range(sets)]
