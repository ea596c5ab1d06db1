"""The decoder: ``Qwen3ForCausalLM`` under a LoRA of rank 16 (``peft``), and its tokenizer.

Two sizes, one code path (``train.decoder`` in ``params.yaml``):

* **full** — ``checkpoint`` is a local folder or hub id of a Qwen3 causal LM (the paper: Qwen3-8B, bf16, on a
  GPU) with its own tokenizer. The value-slot tokens (:mod:`acousticlaim.model.descriptions`) are added to
  the tokenizer, the embeddings are resized, and only those new rows are trained
  (``LoraConfig.trainable_token_indices``), so the checkpoint's weights stay untouched.
* **tiny** — ``checkpoint: null``: the same class at a few layers (``tiny`` overrides of
  :data:`TINY_QWEN3_DEFAULTS`), with a byte-level BPE tokenizer trained offline with the ``tokenizers``
  library on the instruction and the training descriptions (:func:`build_tokenizer`). The base weights
  are random (deterministic from the seed) and first trained from scratch on the training descriptions as
  text alone (:func:`pretrain_text_only`) — the tiny stand-in for a pretrained language model — then
  frozen and wrapped in the same LoRA as the full size.

LoRA (Hu et al. 2022): rank ``lora.r`` (16), scaling ``lora.alpha / r``, on the attention and MLP
projections. The base decoder's weights are never changed by training the LoRA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
from torch import nn

from acousticlaim.model.descriptions import SLOT_TOKENS
from acousticlaim.params import param, settings_from

PAD_TOKEN = "<|pad|>"
EOS_TOKEN = "<|endoftext|>"
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

TINY_QWEN3_DEFAULTS: dict[str, Any] = {
    "hidden_size": 96,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 24,
    "max_position_embeddings": 1024,
    "tie_word_embeddings": True,
    "rope_theta": 10000.0,
}


@dataclass(frozen=True)
class DecoderSpec:
    """What the ``train.decoder`` group of ``params.yaml`` says."""

    checkpoint: str | None = None  # Qwen3 causal LM folder or hub id; None = tiny, trained from scratch
    tokenizer: str | None = None  # tokenizer folder or hub id; None = the checkpoint's, or built offline (tiny)
    dtype: str = "float32"  # bfloat16 for the full size on a GPU
    tiny: dict[str, Any] = field(default_factory=dict)
    vocab_size: int = param(1000, ge=1)  # BPE vocabulary cap of the tiny tokenizer (merges stop when the corpus runs out)
    lora_r: int = param(16, ge=1)
    lora_alpha: int = param(32, ge=1)
    lora_dropout: float = param(0.0, ge=0, lt=1)
    lora_targets: tuple[str, ...] = tuple(LORA_TARGETS)
    pretrain_steps: int = param(100, ge=0)  # tiny only: text-only steps that stand in for pretraining
    pretrain_lr: float = param(3e-3, gt=0)
    pretrain_batch_size: int = param(16, ge=1)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "DecoderSpec":
        return settings_from(cls, params, "train.decoder")

    @property
    def is_tiny(self) -> bool:
        return not self.checkpoint

    @property
    def torch_dtype(self) -> torch.dtype:
        return getattr(torch, self.dtype)


def build_tokenizer(texts: Sequence[str], vocab_size: int = 400):
    """A byte-level BPE tokenizer trained offline on ``texts``, with pad, EOS and the value-slot tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = [PAD_TOKEN, EOS_TOKEN, *SLOT_TOKENS.values()]
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    tok.train_from_iterator(list(texts), trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token=PAD_TOKEN, eos_token=EOS_TOKEN,
        additional_special_tokens=list(SLOT_TOKENS.values()),
    )


def load_tokenizer_file(path: str):
    """The tiny tokenizer saved as ``tokenizer.json`` by a checkpoint."""
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_file(str(path)), pad_token=PAD_TOKEN, eos_token=EOS_TOKEN,
        additional_special_tokens=list(SLOT_TOKENS.values()),
    )


def load_checkpoint_tokenizer(source: str):
    """A checkpoint's tokenizer with the value-slot tokens added (and a pad token if it has none)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source)
    missing = [t for t in SLOT_TOKENS.values() if t not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_special_tokens({"additional_special_tokens": missing})
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if tokenizer.eos_token is None:
        raise ValueError(f"{source}: the tokenizer has no end-of-sequence token")
    return tokenizer


def slot_token_ids(tokenizer) -> dict[int, str]:
    """Token id → quantity key for the value slots."""
    ids = {}
    for key, token in SLOT_TOKENS.items():
        token_id = tokenizer.convert_tokens_to_ids(token)
        if token_id is None or token_id == tokenizer.unk_token_id:
            raise ValueError(f"the tokenizer has no single token for the slot {token}")
        ids[int(token_id)] = key
    return ids


def build_tiny_decoder(spec: DecoderSpec, tokenizer, seed: int):
    """A random ``Qwen3ForCausalLM`` of the tiny size, deterministic from ``seed``."""
    from transformers import Qwen3Config, Qwen3ForCausalLM

    cfg = {**TINY_QWEN3_DEFAULTS, **spec.tiny}
    rope_theta = cfg.pop("rope_theta", 10000.0)
    config = Qwen3Config(
        vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None, rope_parameters={"rope_type": "default", "rope_theta": rope_theta}, **cfg,
    )
    state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        model = Qwen3ForCausalLM(config)
    finally:
        torch.random.set_rng_state(state)
    return model.to(spec.torch_dtype)


def load_decoder(spec: DecoderSpec, tokenizer) -> tuple[nn.Module, list[int]]:
    """The checkpoint's ``Qwen3ForCausalLM``, embeddings resized for added tokens.

    Returns the model and the token ids whose embedding rows are trained (the value slots and any
    appended rows); every other weight of the checkpoint stays frozen.
    """
    from transformers import Qwen3ForCausalLM

    model = Qwen3ForCausalLM.from_pretrained(spec.checkpoint, dtype=spec.torch_dtype, use_safetensors=True)
    old = model.get_input_embeddings().weight.shape[0]
    new_ids: set[int] = set()
    if len(tokenizer) > old:
        model.resize_token_embeddings(len(tokenizer), mean_resizing=True)
        new_ids = set(range(old, len(tokenizer)))
    # The slot rows are trained whether they were appended or fell into the checkpoint's spare rows.
    new_ids = sorted(new_ids | set(slot_token_ids(tokenizer)))
    if model.config.pad_token_id is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    return model, new_ids


def wrap_lora(model: nn.Module, spec: DecoderSpec, trainable_token_ids: Sequence[int] = ()):
    """The base decoder frozen under a LoRA of rank ``spec.lora_r`` (``peft``); new token rows trainable."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=spec.lora_r, lora_alpha=spec.lora_alpha, lora_dropout=spec.lora_dropout,
        target_modules=list(spec.lora_targets), bias="none",
        trainable_token_indices=list(trainable_token_ids) or None,
    )
    for p in model.parameters():
        p.requires_grad_(False)
    return get_peft_model(model, config)


def pretrain_text_only(
    model: nn.Module,
    tokenizer,
    prompts: Sequence[str],
    targets: Sequence[str],
    spec: DecoderSpec,
    seed: int,
    on_step: Callable[[int, float], None] | None = None,
) -> list[float]:
    """Train the tiny base decoder from scratch on (prompt, target) texts, LM loss on the target tokens.

    This stands in for a pretrained language model at the tiny size; the full size never calls it.
    Returns the loss at every step.
    """
    if not spec.is_tiny:
        raise ValueError("text-only pretraining is for the tiny decoder; a checkpoint is already pretrained")
    if len(prompts) != len(targets) or not targets:
        raise ValueError("need as many prompts as targets, and at least one")
    gen = torch.Generator().manual_seed(seed)
    eos = tokenizer.eos_token_id
    encoded = [
        (tokenizer(p, add_special_tokens=False)["input_ids"], tokenizer(t, add_special_tokens=False)["input_ids"] + [eos])
        for p, t in zip(prompts, targets)
    ]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=spec.pretrain_lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, spec.pretrain_steps) / spec.pretrain_steps)))
    model.train()
    losses = []
    for step in range(spec.pretrain_steps):
        idx = torch.randint(len(encoded), (min(spec.pretrain_batch_size, len(encoded)),), generator=gen).tolist()
        seqs = [encoded[i][0] + encoded[i][1] for i in idx]
        width = max(map(len, seqs))
        ids = torch.full((len(seqs), width), tokenizer.pad_token_id, dtype=torch.long)
        labels = torch.full_like(ids, -100)
        mask = torch.zeros_like(ids)
        for r, i in enumerate(idx):
            p, t = encoded[i]
            ids[r, : len(p) + len(t)] = torch.tensor(p + t)
            labels[r, len(p) : len(p) + len(t)] = torch.tensor(t)
            mask[r, : len(p) + len(t)] = 1
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        if on_step:
            on_step(step, losses[-1])
    model.eval()
    return losses
