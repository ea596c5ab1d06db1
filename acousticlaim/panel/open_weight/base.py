"""What every open-weight adapter shares: greedy batched decoding through ``transformers``.

A family adapter (Qwen2-Audio, Qwen2.5-Omni, Granite-Speech, Audio-Flamingo-3) says only what
differs between models: how a conversation is built around the audio and the prompt (system turn,
where the audio sits), the chat template to render it with, how its processor is called, and which
tokens end a turn. This base does the rest identically for all of them:

* **the audio** — each request's raw waveform as float32, at 16 kHz, never rescaled or normalised;
* **the prompt** — the conversation rendered by the checkpoint's own chat template (the processor's,
  else the tokenizer's); a checkpoint that ships none gets the family's pinned copy, which renders
  the same text as the published template;
* **decoding** — greedy (``do_sample=False``, one beam, no repetition penalty: the checkpoint's own
  sampling defaults are replaced), ``max_new_tokens`` (160) new tokens, batches left-padded;
* **precision** — bf16 on a GPU, float32 on a CPU (``dtype: auto``);
* **accounting** — ``n_tokens`` counts the new tokens before the first stop token; ``truncated`` is
  true when no stop token came before the cap; ``seconds`` is the batch's wall time over its size.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Sequence

import numpy as np
import torch

from acousticlaim.panel.protocol import GenerationRequest, GenerationResult, check_requests

log = logging.getLogger(__name__)

DEFAULT_MAX_NEW_TOKENS = 160


def resolve_device(device: str | None) -> torch.device:
    """``auto`` (or ``None``) → ``cuda`` when a GPU is visible, else ``cpu``."""
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def resolve_dtype(dtype: str | None, device: torch.device) -> torch.dtype:
    """``auto`` → bfloat16 on a GPU, float32 on a CPU; else the named dtype."""
    if dtype in (None, "auto"):
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    names = {"bfloat16": torch.bfloat16, "bf16": torch.bfloat16, "float16": torch.float16, "fp16": torch.float16,
             "float32": torch.float32, "fp32": torch.float32}
    try:
        return names[str(dtype)]
    except KeyError:
        raise ValueError(f"unknown dtype {dtype!r}; use auto, bfloat16, float16 or float32") from None


class OpenWeightAdapter(ABC):
    """Greedy batched generation for one ``transformers`` audio-language model family."""

    family: ClassVar[str] = ""
    model_class_name: ClassVar[str] = ""
    # Token strings that end an assistant turn (those present in the tokenizer are used, plus its eos).
    stop_tokens: ClassVar[tuple[str, ...]] = ()
    # A Jinja chat template rendering the published prompt format, for checkpoints that ship none.
    pinned_chat_template: ClassVar[str] = ""
    # The placeholder the rendered prompt must hold exactly once (the processor expands it to audio tokens).
    audio_placeholder: ClassVar[str] = ""
    # The audio part of a message: the type and an ``audio`` key, as the published templates test either.
    AUDIO_PART: ClassVar[dict[str, str]] = {"type": "audio", "audio": "clip"}

    def __init__(
        self,
        model: Any,
        processor: Any,
        *,
        name: str | None = None,
        checkpoint: str = "",
        max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
        batch_size: int = 8,
    ):
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
        self.model = model.eval()
        self.processor = processor
        self.tokenizer = processor.tokenizer
        self.tokenizer.padding_side = "left"
        self.name = name or self.family
        self.checkpoint = checkpoint
        self.max_new_tokens = int(max_new_tokens)
        self.batch_size = int(batch_size)
        self.chat_template = self._choose_chat_template()
        self.stop_token_ids = self._stop_token_ids()
        pad = self.tokenizer.pad_token_id
        self.pad_token_id = pad if pad is not None else self.stop_token_ids[0]
        self.generation_config = self._greedy_config()
        # The checkpoint's own sampling defaults (temperature, top-k/p, repetition penalty) must not leak
        # into the decode: generate() fills unset fields from model.generation_config.
        self.model.generation_config = self._greedy_config()

    # -- loading -----------------------------------------------------------------------------
    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: str,
        *,
        name: str | None = None,
        device: str | None = "auto",
        dtype: str | None = "auto",
        max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
        batch_size: int = 8,
    ) -> "OpenWeightAdapter":
        """Load the model and processor from a local folder or a hub id (safetensors weights only)."""
        if not checkpoint:
            raise ValueError(f"{cls.family}: no checkpoint configured (a local path or a hub id)")
        dev = resolve_device(device)
        model = cls.load_model(checkpoint, dev, resolve_dtype(dtype, dev))
        processor = cls.load_processor(checkpoint)
        return cls(model, processor, name=name, checkpoint=checkpoint, max_new_tokens=max_new_tokens,
                   batch_size=batch_size)

    @classmethod
    def load_model(cls, checkpoint: str, device: torch.device, dtype: torch.dtype):
        import transformers

        return load_model(getattr(transformers, cls.model_class_name), checkpoint, device, dtype)

    @classmethod
    def load_processor(cls, checkpoint: str):
        from transformers import AutoProcessor

        return AutoProcessor.from_pretrained(checkpoint)

    # -- per family --------------------------------------------------------------------------
    @abstractmethod
    def conversation(self, prompt: str) -> list[dict[str, Any]]:
        """The chat messages for one request: the family's system turn and audio placement."""

    @abstractmethod
    def encode(self, prompts: list[str], audios: list[np.ndarray]):
        """Run the family's processor on rendered prompts and waveforms (a BatchFeature of tensors)."""

    # -- shared ------------------------------------------------------------------------------
    def _choose_chat_template(self) -> str:
        for owner in (self.processor, self.tokenizer):
            template = getattr(owner, "chat_template", None)
            if isinstance(template, str) and template.strip():
                return template
        if not self.pinned_chat_template:
            raise ValueError(f"{self.family}: the checkpoint ships no chat template and the family pins none")
        return self.pinned_chat_template

    def _stop_token_ids(self) -> list[int]:
        ids: list[int] = []
        vocab = self.tokenizer.get_vocab()
        for tok in self.stop_tokens:
            if tok in vocab:
                ids.append(int(vocab[tok]))
        eos = self.tokenizer.eos_token_id
        if eos is not None and int(eos) not in ids:
            ids.append(int(eos))
        if not ids:
            raise ValueError(f"{self.family}: the tokenizer has none of the stop tokens {self.stop_tokens} and no eos")
        return ids

    def _greedy_config(self):
        from transformers import GenerationConfig

        return GenerationConfig(
            max_new_tokens=self.max_new_tokens,
            do_sample=False,
            num_beams=1,
            repetition_penalty=1.0,
            eos_token_id=list(self.stop_token_ids),
            pad_token_id=self.pad_token_id,
        )

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def dtype(self) -> torch.dtype:
        return next(self.model.parameters()).dtype

    def render_prompt(self, prompt: str) -> str:
        """The conversation for ``prompt`` rendered by the chat template, ending where the assistant speaks.

        The rendered text must hold the audio placeholder exactly once: a template that drops the
        audio (or repeats it) is an error, not a silent text-only generation.
        """
        text = self.tokenizer.apply_chat_template(
            self.conversation(prompt), chat_template=self.chat_template, tokenize=False, add_generation_prompt=True
        )
        n = text.count(self.audio_placeholder)
        if n != 1:
            raise ValueError(f"{self.family}: the chat template placed the audio placeholder "
                             f"{self.audio_placeholder!r} {n} times (expected once) in {text!r}")
        return text

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.family,
            "checkpoint": self.checkpoint,
            "max_new_tokens": self.max_new_tokens,
            "decoding": "greedy",
            "dtype": str(self.dtype).replace("torch.", ""),
        }

    def prepare_inputs(self, requests: Sequence[GenerationRequest]) -> dict[str, torch.Tensor]:
        """Rendered prompts and raw waveforms through the processor, on the model's device and dtype."""
        check_requests(requests)
        prompts = [self.render_prompt(r.prompt) for r in requests]
        audios = [np.asarray(r.audio, dtype=np.float32) for r in requests]  # raw: no rescaling, no normalising
        batch = self.encode(prompts, audios)
        inputs: dict[str, torch.Tensor] = {}
        for key, value in batch.items():
            if not isinstance(value, torch.Tensor):
                continue
            value = value.to(self.device)
            if value.is_floating_point():
                value = value.to(self.dtype)
            inputs[key] = value
        return inputs

    @torch.inference_mode()
    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        if not requests:
            return []
        t0 = time.perf_counter()
        inputs = self.prepare_inputs(requests)
        prompt_len = inputs["input_ids"].shape[1]
        seed = requests[0].seed
        torch.manual_seed(seed)  # greedy decoding does not sample; seeded all the same for any stochastic layer
        out = self.model.generate(**inputs, generation_config=self.generation_config)
        sequences = out if isinstance(out, torch.Tensor) else out.sequences
        new_tokens = sequences[:, prompt_len:].cpu()
        seconds = (time.perf_counter() - t0) / len(requests)
        return [self._result(row, seconds) for row in new_tokens]

    def _result(self, row: torch.Tensor, seconds: float) -> GenerationResult:
        ids = row.tolist()
        stops = set(self.stop_token_ids)
        end = next((i for i, t in enumerate(ids) if t in stops), None)
        truncated = end is None
        n_tokens = len(ids) if truncated else end
        text = self.tokenizer.decode(ids[:n_tokens], skip_special_tokens=True).strip()
        return GenerationResult(text, n_tokens, truncated, seconds, "length" if truncated else "stop")


def load_model(model_cls: Any, checkpoint: str, device: torch.device, dtype: torch.dtype, **kwargs: Any):
    """``from_pretrained`` with safetensors weights only, cast to ``dtype`` and moved to ``device``."""
    model = model_cls.from_pretrained(checkpoint, dtype=dtype, use_safetensors=True, **kwargs)
    return model.to(device).eval()


def checkpoint_chat_template(checkpoint: str) -> str | None:
    """The processor chat template a checkpoint ships (``chat_template.jinja`` or ``.json``), if any."""
    import json

    from transformers.utils import cached_file

    for filename in ("chat_template.jinja", "chat_template.json"):
        path = cached_file(checkpoint, filename, _raise_exceptions_for_missing_entries=False,
                           _raise_exceptions_for_connection_errors=False)
        if path is None:
            continue
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        return json.loads(text)["chat_template"] if filename.endswith(".json") else text
    return None
