"""Granite-Speech's log-mel features without ``torchaudio``.

``transformers``' :class:`GraniteSpeechFeatureExtractor` computes its mel spectrogram with
``torchaudio.transforms.MelSpectrogram``, and refuses to start when ``torchaudio`` is missing — as
it is wherever no ``torchaudio`` wheel matches the installed ``torch``. This subclass computes the
same features with ``torch.stft`` and ``transformers``' own HTK mel filter bank, so the Granite
adapter runs on such machines too:

* power spectrogram: ``n_fft`` 512, a periodic Hann window of ``win_length`` 400 centred in the
  frame, hop 160, centred frames with reflect padding, ``|X|²`` (``torchaudio``'s defaults);
* mel: 80 triangular HTK-scale filters over 0 … ``sampling_rate``/2, no area normalisation;
* then Granite's own steps: ``log10`` of the mel energies floored at 1e-10, floored again at the
  clip's maximum − 8, ``/4 + 1``; an odd last frame dropped; pairs of frames stacked (160 values).

Everything else (audio lengths, the number of audio tokens, the mask) is the parent's code.
"""

from __future__ import annotations

import torch
from transformers.audio_utils import mel_filter_bank
from transformers.feature_extraction_sequence_utils import SequenceFeatureExtractor
from transformers.feature_extraction_utils import BatchFeature
from transformers.models.granite_speech.feature_extraction_granite_speech import GraniteSpeechFeatureExtractor


class MelPowerSpectrogram(torch.nn.Module):
    """``|STFT|²`` through an HTK mel filter bank: (batch, samples) → (batch, n_mels, frames)."""

    def __init__(self, sample_rate: int, n_fft: int, win_length: int, hop_length: int, n_mels: int):
        super().__init__()
        self.n_fft, self.win_length, self.hop_length = n_fft, win_length, hop_length
        self.register_buffer("window", torch.hann_window(win_length, periodic=True))
        bank = mel_filter_bank(
            num_frequency_bins=n_fft // 2 + 1,
            num_mel_filters=n_mels,
            min_frequency=0.0,
            max_frequency=sample_rate / 2,
            sampling_rate=sample_rate,
            norm=None,
            mel_scale="htk",
        )
        self.register_buffer("bank", torch.tensor(bank, dtype=torch.float32))  # (n_freqs, n_mels)

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(
            audio,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            window=self.window,
            center=True,
            pad_mode="reflect",
            return_complex=True,
        )
        power = spec.abs().pow(2)  # (batch, n_freqs, frames)
        return torch.matmul(power.transpose(-1, -2), self.bank).transpose(-1, -2)


class TorchGraniteSpeechFeatureExtractor(GraniteSpeechFeatureExtractor):
    """:class:`GraniteSpeechFeatureExtractor` with the mel spectrogram computed by ``torch`` alone."""

    def __init__(
        self,
        sampling_rate: int = 16000,
        n_fft: int = 512,
        win_length: int = 400,
        hop_length: int = 160,
        n_mels: int = 80,
        projector_window_size: int = 15,
        projector_downsample_rate: int = 5,
        padding_value: float = 0.0,
        **kwargs,
    ):
        feature_size = kwargs.pop("feature_size", None) or n_mels
        # The parent's __init__ insists on torchaudio; set up the same state without it.
        SequenceFeatureExtractor.__init__(
            self, feature_size=feature_size, sampling_rate=sampling_rate, padding_value=padding_value, **kwargs
        )
        self.sampling_rate = sampling_rate
        self.melspec_kwargs = {
            "sample_rate": sampling_rate,
            "n_fft": n_fft,
            "win_length": win_length,
            "hop_length": hop_length,
            "n_mels": n_mels,
        }
        self.mel_filters = MelPowerSpectrogram(**self.melspec_kwargs)
        self.projector_window_size = projector_window_size
        self.projector_downsample_rate = projector_downsample_rate

    def log_mel_pairs(self, audio: torch.Tensor, device: str | None = "cpu") -> torch.Tensor:
        """(batch, samples) → Granite's stacked log-mel features (batch, frames // 2, 2 · n_mels)."""
        mel_module = self.mel_filters.to(device) if device is not None else self.mel_filters
        audio = audio.to(device) if device is not None else audio
        with torch.no_grad():
            mel = mel_module(audio.float())
            logmel = mel.transpose(-1, -2).clamp(min=1e-10).log10()
            ceiling = logmel.amax(dim=(-2, -1), keepdim=True)
            logmel = torch.maximum(logmel, ceiling - 8.0) / 4.0 + 1.0
            if logmel.shape[1] % 2 == 1:
                logmel = logmel[:, :-1]
            return logmel.reshape(logmel.shape[0], -1, 2 * logmel.shape[-1])

    def __call__(self, audios, device: str | None = "cpu") -> BatchFeature:
        batched, lengths = self._get_audios_and_audio_lengths(audios)
        sizes = self._get_num_audio_features(lengths)
        mask = torch.arange(max(sizes)).view(1, -1) < torch.tensor(sizes).view(-1, 1)
        return BatchFeature(
            data={
                "input_features": self.log_mel_pairs(batched, device=device),
                "audio_embed_sizes": sizes,
                "input_features_mask": mask,
            }
        )
