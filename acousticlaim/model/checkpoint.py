"""Saving and loading a trained reference system (safetensors only; nothing is unpickled).

A checkpoint is a folder:

* ``system.json`` — format tag, the :class:`SystemSpec` (sizes, instruction, decoder spec), the
  dispersion fixed before training, the training seed, and the token ids whose rows were trained;
* ``trainable.safetensors`` — every trained tensor: compressor, adapter, confidence head, the LoRA
  matrices (and trained token rows of a full-size checkpoint);
* ``tokenizer/`` — the tokenizer as ``save_pretrained`` writes it (the tiny BPE, or the checkpoint's with
  the value slots added);
* ``base_decoder.safetensors`` + ``base_decoder.json`` — tiny size only: the base decoder's weights and
  ``Qwen3Config`` (after its text-only training). A full-size checkpoint is re-read from
  ``decoder.checkpoint`` instead, so the folder stays small.

Loading rebuilds the same modules and requires every trained tensor to be present with its shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from acousticlaim.io import atomic_path, write_json
from acousticlaim.model.decoder import load_decoder, wrap_lora
from acousticlaim.model.head import Dispersion
from acousticlaim.model.system import ReferenceSystem, SystemSpec

FORMAT = "acousticlaim-reference-system/1"


def _save_tensors(path: Path, tensors: dict[str, torch.Tensor]) -> None:
    with atomic_path(path) as tmp:
        save_file({k: v.detach().cpu().contiguous().clone() for k, v in tensors.items()}, str(tmp))


def base_decoder_state(system: ReferenceSystem) -> dict[str, torch.Tensor]:
    """The frozen base decoder's own weights (LoRA layers removed, tied output weights once)."""
    base = system.decoder.get_base_model()
    state = {}
    for key, value in base.state_dict().items():
        if "lora_" in key or "trainable_tokens_" in key or "token_adapter" in key:
            continue
        state[key.replace(".base_layer.", ".")] = value
    if getattr(base.config, "tie_word_embeddings", False):
        state.pop("lm_head.weight", None)
    return state


def trainable_state(system: ReferenceSystem) -> dict[str, torch.Tensor]:
    return {name: p for name, p in system.named_parameters() if p.requires_grad}


def save_system(system: ReferenceSystem, folder: str | Path, seed: int, extra: dict | None = None) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _save_tensors(folder / "trainable.safetensors", trainable_state(system))
    system.tokenizer.save_pretrained(str(folder / "tokenizer"))
    if system.spec.decoder.is_tiny:
        _save_tensors(folder / "base_decoder.safetensors", base_decoder_state(system))
        write_json(folder / "base_decoder.json", system.decoder.get_base_model().config.to_dict())
    write_json(
        folder / "system.json",
        {
            "format": FORMAT,
            "spec": system.spec.to_dict(),
            "dispersion": system.dispersion.to_dict(),
            "seed": seed,
            "new_token_ids": system.new_token_ids,
            **(extra or {}),
        },
    )
    return folder


def _tiny_base(folder: Path, dtype: torch.dtype):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config.from_dict(json.loads((folder / "base_decoder.json").read_text()))
    model = Qwen3ForCausalLM(config)
    state = load_file(str(folder / "base_decoder.safetensors"))
    missing, unexpected = model.load_state_dict(state, strict=False)
    allowed_missing = {"lm_head.weight"} if config.tie_word_embeddings else set()
    if unexpected or set(missing) - allowed_missing:
        raise ValueError(
            f"{folder / 'base_decoder.safetensors'}: does not match its config "
            f"(missing {sorted(set(missing) - allowed_missing)[:5]}, unexpected {sorted(unexpected)[:5]})"
        )
    if config.tie_word_embeddings:
        model.tie_weights()
    return model.to(dtype).eval()


def load_system(folder: str | Path, device: str = "cpu") -> tuple[ReferenceSystem, dict]:
    """Rebuild a saved system; returns it (in eval mode) and the contents of ``system.json``."""
    from transformers import AutoTokenizer

    folder = Path(folder)
    meta_path = folder / "system.json"
    if not meta_path.exists():
        raise FileNotFoundError(f"{folder}: not a reference-system checkpoint (no system.json)")
    meta = json.loads(meta_path.read_text())
    if meta.get("format") != FORMAT:
        raise ValueError(f"{meta_path}: format {meta.get('format')!r}, expected {FORMAT!r}")
    spec = SystemSpec.from_dict(meta["spec"])
    tokenizer = AutoTokenizer.from_pretrained(str(folder / "tokenizer"))
    if spec.decoder.is_tiny:
        base = _tiny_base(folder, spec.decoder.torch_dtype)
        new_ids: list[int] = []
    else:
        base, new_ids = load_decoder(spec.decoder, tokenizer)
    if sorted(new_ids) != sorted(meta.get("new_token_ids", [])):
        raise ValueError(f"{meta_path}: trained token rows {meta.get('new_token_ids')} differ from the rebuilt {new_ids}")
    decoder = wrap_lora(base, spec.decoder, new_ids)
    system = ReferenceSystem(spec, decoder, tokenizer, Dispersion.from_dict(meta["dispersion"]), new_ids)
    saved = load_file(str(folder / "trainable.safetensors"))
    expected = trainable_state(system)
    missing = sorted(set(expected) - set(saved))
    unexpected = sorted(set(saved) - set(expected))
    if missing or unexpected:
        raise ValueError(f"{folder / 'trainable.safetensors'}: missing {missing[:5]}, unexpected {unexpected[:5]}")
    for name, tensor in saved.items():
        if tensor.shape != expected[name].shape:
            raise ValueError(f"{folder / 'trainable.safetensors'}: {name} has shape {tuple(tensor.shape)}, expected {tuple(expected[name].shape)}")
    system.load_state_dict(saved, strict=False)
    return system.to(device).eval(), meta
