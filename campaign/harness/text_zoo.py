"""Text architectures for `convfail test run --source text`, built from torch.nn's own modules with
their published sizes (random weights, nothing downloaded; the sandbox has no network):

- BERT-base / BERT-large (Devlin et al. 2019) and the smaller BERTs Google published with them
  (Turc et al. 2019: BERT-Tiny 2 x 128, BERT-Mini 4 x 256): token, position and segment
  embeddings, a post-norm nn.TransformerEncoder with GELU, a tanh pooler; inputs: token ids and an
  attention mask (1 = token, 0 = padding; the last quarter of the sequence is padding).
- GPT-2 small (Radford et al. 2019): decoder-only, a pre-norm nn.TransformerEncoder under a causal
  mask, a final layer norm and the language-model head tied to the token embedding.
- nn.Transformer base (Vaswani et al. 2017): 6 + 6 layers of 512, a shared 37,000-token
  vocabulary, sinusoidal positions, the source padding mask and the target's causal mask.
- LSTM and GRU language models (Zaremba et al. 2014, medium: 650 units over a 10,000-word
  vocabulary, 35 steps) and seq2seq encoder-decoders (512 units), uni- and bidirectional, 1-3
  layers.

RoBERTa and XLM-R from torchtext are left out: Debian's python3-torchtext 0.14.1 does not import
(its C++ extension does not load), and the package is not installed.
"""

import math

SEQ = 128  # transformer inputs: tokens per sequence
RNN_STEPS = 35
RNN_VOCAB = 10000


def _nn():
    import torch.nn as nn
    return nn


def _ids_and_mask(g, vocab, seq=SEQ):
    import torch
    ids = torch.randint(0, vocab, (1, seq), generator=g, dtype=torch.int64)
    mask = torch.ones((1, seq), dtype=torch.int64)
    mask[:, seq - seq // 4:] = 0
    return ids, mask


def _bert_class():
    import torch
    nn = _nn()

    class BertShaped(nn.Module):
        def __init__(self, vocab, hidden, layers, heads, ff, positions=512, types=2):
            super().__init__()
            self.tokens = nn.Embedding(vocab, hidden)
            self.positions = nn.Embedding(positions, hidden)
            self.types = nn.Embedding(types, hidden)
            self.norm = nn.LayerNorm(hidden, eps=1e-12)
            layer = nn.TransformerEncoderLayer(hidden, heads, ff, dropout=0.1, activation="gelu",
                                               layer_norm_eps=1e-12, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers)
            self.pooler = nn.Linear(hidden, hidden)

        def forward(self, input_ids, attention_mask):
            seq = input_ids.shape[1]
            pos = torch.arange(seq, device=input_ids.device).unsqueeze(0)
            x = self.tokens(input_ids) + self.positions(pos) + self.types(torch.zeros_like(input_ids))
            x = self.norm(x)
            x = self.encoder(x, src_key_padding_mask=attention_mask == 0)
            return x, torch.tanh(self.pooler(x[:, 0]))
    return BertShaped


def _causal(seq):
    import torch
    return torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)


def _gpt2_class():
    import torch
    nn = _nn()

    class Gpt2Shaped(nn.Module):
        def __init__(self, vocab=50257, ctx=1024, hidden=768, layers=12, heads=12):
            super().__init__()
            self.tokens = nn.Embedding(vocab, hidden)
            self.positions = nn.Embedding(ctx, hidden)
            layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout=0.1,
                                               activation="gelu", layer_norm_eps=1e-5,
                                               batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(layer, layers)
            self.norm = nn.LayerNorm(hidden)

        def forward(self, input_ids, attention_mask):
            seq = input_ids.shape[1]
            pos = torch.arange(seq, device=input_ids.device).unsqueeze(0)
            x = self.tokens(input_ids) + self.positions(pos)
            x = self.blocks(x, mask=_causal(seq), src_key_padding_mask=attention_mask == 0)
            return self.norm(x) @ self.tokens.weight.t()  # the head tied to the embedding
    return Gpt2Shaped


def _transformer_base():
    import torch
    nn = _nn()

    class TransformerBase(nn.Module):
        def __init__(self, vocab=37000, d=512):
            super().__init__()
            self.d = d
            self.embed = nn.Embedding(vocab, d)
            self.transformer = nn.Transformer(d, 8, 6, 6, 2048, dropout=0.1, batch_first=True)
            # torch 1.13's eager fast path drops the padded positions of the encoder's output
            # (a nested tensor), and the decoder then refuses the memory's padding mask: what
            # a user does about it is turn the nested tensor off.
            self.transformer.encoder.enable_nested_tensor = False
            pe = torch.zeros(SEQ, d)
            at = torch.arange(SEQ).unsqueeze(1).float()
            div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
            pe[:, 0::2], pe[:, 1::2] = torch.sin(at * div), torch.cos(at * div)
            self.register_buffer("pe", pe)

        def forward(self, src, tgt, src_mask):
            scale = math.sqrt(self.d)
            s = self.embed(src) * scale + self.pe[:src.shape[1]]
            t = self.embed(tgt) * scale + self.pe[:tgt.shape[1]]
            pad = src_mask == 0
            y = self.transformer(s, t, tgt_mask=_causal(tgt.shape[1]), src_key_padding_mask=pad,
                                 memory_key_padding_mask=pad)
            return y @ self.embed.weight.t()

    def inputs(g):
        src, mask = _ids_and_mask(g, 37000, 64)
        tgt, _ = _ids_and_mask(g, 37000, 64)
        return src, tgt, mask
    return TransformerBase(), inputs


def _rnn_lm(cell, layers, bi):
    nn = _nn()

    class RnnLm(nn.Module):
        def __init__(self, units=650):
            super().__init__()
            self.embed = nn.Embedding(RNN_VOCAB, units)
            self.rnn = getattr(nn, cell)(units, units, layers, batch_first=True, bidirectional=bi)
            self.out = nn.Linear(units * (2 if bi else 1), RNN_VOCAB)

        def forward(self, ids):
            y, _ = self.rnn(self.embed(ids))
            return self.out(y)

    def inputs(g):
        return (_ids_and_mask(g, RNN_VOCAB, RNN_STEPS)[0],)
    return lambda: (RnnLm(), inputs)


def _rnn_seq2seq(cell, layers, bi):
    nn = _nn()

    class Seq2Seq(nn.Module):
        """An encoder RNN (bidirectional: its two directions summed) whose final state starts the
        decoder RNN, teacher-forced on the target tokens."""

        def __init__(self, units=512):
            super().__init__()
            self.src_embed = nn.Embedding(RNN_VOCAB, units)
            self.tgt_embed = nn.Embedding(RNN_VOCAB, units)
            rnn = getattr(nn, cell)
            self.encoder = rnn(units, units, layers, batch_first=True, bidirectional=bi)
            self.decoder = rnn(units, units, layers, batch_first=True)
            self.out = nn.Linear(units, RNN_VOCAB)

        def _bridge(self, h):
            return h.view(layers, 2, h.shape[1], h.shape[2]).sum(1) if bi else h

        def forward(self, src, tgt):
            _, state = self.encoder(self.src_embed(src))
            state = tuple(self._bridge(s) for s in state) if cell == "LSTM" else self._bridge(state)
            y, _ = self.decoder(self.tgt_embed(tgt), state)
            return self.out(y)

    def inputs(g):
        return (_ids_and_mask(g, RNN_VOCAB, 20)[0], _ids_and_mask(g, RNN_VOCAB, 20)[0])
    return lambda: (Seq2Seq(), inputs)


def _bert(hidden, layers, heads):
    return lambda: (_bert_class()(30522, hidden, layers, heads, 4 * hidden),
                    lambda g: _ids_and_mask(g, 30522))


def _gpt2_small():
    return _gpt2_class()(), lambda g: _ids_and_mask(g, 50257)


def _zoo():
    zoo = {"bert_tiny": _bert(128, 2, 2), "bert_mini": _bert(256, 4, 4),
           "bert_base": _bert(768, 12, 12), "bert_large": _bert(1024, 24, 16),
           "gpt2_small": _gpt2_small, "transformer_base": _transformer_base}
    for cell in ("LSTM", "GRU"):
        for bi in (False, True):
            for layers in (1, 2, 3):
                suffix = "%s%dl" % ("bi_" if bi else "", layers)
                zoo["%s_lm_%s" % (cell.lower(), suffix)] = _rnn_lm(cell, layers, bi)
                zoo["%s_seq2seq_%s" % (cell.lower(), suffix)] = _rnn_seq2seq(cell, layers, bi)
    return zoo


ZOO = _zoo()


def models():
    return [{"name": n, "family": "text"} for n in sorted(ZOO)]


def build(name, sets, seed):
    """The module in eval mode and `sets` input tuples (fixed seed), or raises KeyError."""
    import torch
    torch.manual_seed(seed)
    model, inputs = ZOO[name]()
    model = model.eval()
    g = torch.Generator().manual_seed(seed)
    return model, [inputs(g) for _ in range(sets)]
