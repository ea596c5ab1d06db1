"""The model's pieces on random tensors: shapes, masks, the zero overlap channel, the head and its loss."""

import numpy as np
import pytest
import torch

from acousticlaim.model.adapter import Adapter
from acousticlaim.model.compressor import ConvCompressor, conv_output_lengths, length_mask
from acousticlaim.model.encoder import FRAME_RATE_HZ, EncoderSpec, build_encoder, mel_filterbank
from acousticlaim.model.head import ConfidenceHead, Dispersion, heteroscedastic_loss, masked_mean
from acousticlaim.quantities import SCORED_KEYS


def _frames(b=3, t=100, d=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, t, d, generator=g)


def test_one_prefix_token_per_160_ms():
    comp = ConvCompressor(in_dim=12, channels=16, n_layers=3)
    ten_seconds = int(10 * FRAME_RATE_HZ)  # 500 frames of 20 ms
    tokens, lengths = comp(_frames(1, ten_seconds), torch.tensor([ten_seconds]))
    assert comp.frames_per_token * 1000 / FRAME_RATE_HZ == 160
    assert tokens.shape == (1, 63, 16) and lengths.tolist() == [63]  # ceil(500 / 8)
    assert conv_output_lengths(torch.tensor([1, 8, 9, 16, 17]), 3).tolist() == [1, 1, 2, 2, 3]


def test_overlap_channel_is_held_at_zero():
    torch.manual_seed(0)
    comp = ConvCompressor(in_dim=12, channels=16)
    x, lengths = _frames(), torch.tensor([100, 80, 37])
    before, _ = comp(x, lengths)
    with torch.no_grad():  # the overlap channel is the last input channel of the first conv and of the shortcut
        comp.convs[0].weight[:, -1, :] += 5.0
        comp.shortcut.weight[:, -1, :] += 5.0
    after, _ = comp(x, lengths)
    assert torch.equal(before, after)
    with torch.no_grad():  # a change to a feature channel does change the output
        comp.convs[0].weight[:, 0, :] += 5.0
    assert not torch.allclose(before, comp(x, lengths)[0])


def test_a_clip_gives_the_same_prefix_alone_and_in_a_padded_batch():
    torch.manual_seed(0)
    comp, adapter = ConvCompressor(12, 16), Adapter(16, 32, n_heads=2)
    comp.eval(), adapter.eval()
    x = _frames(3, 100)
    lengths = torch.tensor([100, 61, 37])
    tokens, tl = comp(x, lengths)
    z = adapter(tokens, length_mask(tl, tokens.shape[1]))
    for i in range(3):
        n = int(lengths[i])
        ti, tli = comp(x[i : i + 1, :n], lengths[i : i + 1])
        zi = adapter(ti, length_mask(tli, ti.shape[1]))
        p = int(tli[0])
        assert torch.allclose(z[i, :p], zi[0], atol=1e-5)
        assert torch.all(z[i, p:] == 0)


def test_masked_mean_ignores_padding():
    z = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    mask = torch.tensor([[True, True, False]])
    assert torch.allclose(masked_mean(z, mask), torch.tensor([[2.0, 3.0]]))


def test_per_token_terms_sum_to_the_value_to_float_precision():
    torch.manual_seed(0)
    head = ConfidenceHead(32)
    with torch.no_grad():
        head.linear.weight.normal_()
        head.linear.bias.normal_()
    disp = Dispersion(tuple(SCORED_KEYS), np.linspace(-5, 200, 10), np.linspace(0.1, 30, 10))
    z = torch.randn(4, 20, 32)
    mask = length_mask(torch.tensor([20, 13, 1, 7]), 20)
    terms = head.decompose(z, mask, disp)
    v_norm, _ = head(z, mask)
    for i, t in enumerate(terms):
        assert t.shape == (int(mask[i].sum()), 10)
        value = t.sum(axis=0)
        assert np.allclose(value, disp.to_canonical(v_norm[i].detach().double().numpy()), rtol=1e-5, atol=1e-4 * disp.scale)
        # float64 sum of the terms against the same value computed in one float64 pass
        pooled = z[i][mask[i]].double().mean(0)
        w, b = head.linear.weight[:10].detach().double(), head.linear.bias[:10].detach().double()
        direct = disp.center + disp.scale * (w @ pooled + b).numpy()
        assert np.allclose(value, direct, rtol=1e-12, atol=1e-10)


def test_dispersion_is_median_and_scaled_mad_fixed_from_labels():
    labels = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [10.0, 7.0], [np.nan, 5.0]])
    d = Dispersion.from_labels(labels, keys=("a", "b"))
    assert d.center.tolist() == [2.5, 5.0]
    assert d.scale[0] == pytest.approx(1.4826 * 1.0)  # |x - 2.5| = 1.5, .5, .5, 7.5 → median 1.0
    assert d.scale[1] == pytest.approx(np.std([5, 5, 5, 7, 5]))  # MAD 0 → s.d.
    assert np.allclose(d.to_canonical(d.normalise(labels[:4])), labels[:4])
    with pytest.raises(ValueError, match="no defined training label for b"):
        Dispersion.from_labels(np.array([[1.0, np.nan]]), keys=("a", "b"))


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0])
def test_loss_gradients_follow_the_detached_nll(beta):
    v = torch.tensor([[0.3, -1.0]], requires_grad=True)
    s = torch.tensor([[0.7, -0.4]], requires_grad=True)
    y = torch.tensor([[1.5, 2.0]])
    loss, per_q = heteroscedastic_loss(v, s, y, beta=beta)
    loss.backward()
    e = (y - v).detach()
    prec = torch.exp(-s.detach())
    # value: only the error term, weighted by precision^(1-β); variance term sees a detached error
    expected_v = -(prec ** (1 - beta)) * e / 2  # mean over 2 quantities
    expected_s = 0.5 * (1 - prec * e**2) / 2
    assert torch.allclose(v.grad, expected_v, atol=1e-6)
    assert torch.allclose(s.grad, expected_s, atol=1e-6)
    assert per_q.shape == (2,)


def test_loss_masks_undefined_labels():
    v = torch.zeros(3, 2, requires_grad=True)
    s = torch.zeros(3, 2, requires_grad=True)
    y = torch.tensor([[1.0, float("nan")], [1.0, float("nan")], [1.0, float("nan")]])
    loss, per_q = heteroscedastic_loss(v, s, y)
    loss.backward()
    assert torch.isfinite(loss)
    assert torch.all(v.grad[:, 1] == 0) and torch.all(s.grad[:, 1] == 0)
    assert per_q[0] == pytest.approx(0.5 * 1.0 + 0.5 * 1.0)  # variance term ½e² + error term ½e² at s=0


def test_mel_filterbank_peaks_at_one_and_covers_the_band():
    fb = mel_filterbank(40, 1024, 16000, 40.0, 8000.0)
    assert fb.shape == (40, 513)
    assert np.all(fb.max(axis=1) > 0.5) and fb.max() <= 1.0
    with pytest.raises(ValueError):
        mel_filterbank(40, 1024, 16000, 100.0, 9000.0)


def test_logmel_encoder_keeps_absolute_level():
    enc = build_encoder(EncoderSpec(kind="logmel"))
    rng = np.random.default_rng(0)
    x = 0.01 * rng.normal(size=16000)
    quiet, loud = enc(x), enc(10 * x)
    assert quiet.shape == (47, 80)  # (16000 - 1024) // 320 + 1 frames at a 20-ms hop
    assert np.allclose(loud - quiet, 2.0, atol=1e-3)  # ×10 amplitude = +2 in log10 power


def test_tiny_wavlm_is_deterministic_from_its_seed_and_read_at_the_layer():
    x = np.random.default_rng(0).normal(size=8000) * 0.1
    a = build_encoder(EncoderSpec(kind="wavlm", seed=3, layer=7))
    b = build_encoder(EncoderSpec(kind="wavlm", seed=3, layer=7))
    c = build_encoder(EncoderSpec(kind="wavlm", seed=4, layer=7))
    fa = a(x)
    assert fa.shape == (24, 64)  # 8000 samples / 320 - 1 frames, hidden size 64
    assert np.array_equal(fa, b(x))
    assert not np.allclose(fa, c(x))
    with torch.no_grad():
        hidden = a.model(torch.as_tensor(x, dtype=torch.float32)[None], output_hidden_states=True).hidden_states
    assert len(hidden) == 9 and np.array_equal(fa, hidden[7][0].numpy())
    assert not any(p.requires_grad for p in a.model.parameters())


def test_encoder_spec_rejects_unknown_keys_and_kinds():
    with pytest.raises(ValueError, match="unknown keys"):
        EncoderSpec.from_params({"kind": "logmel", "hop": 10})
    with pytest.raises(ValueError, match="kind"):
        EncoderSpec.from_params({"kind": "hubert"})
