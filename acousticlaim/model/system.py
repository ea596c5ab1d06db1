"""The reference system assembled: compressor → adapter → (confidence head, decoder under LoRA).

The encoder is frozen and runs ahead of time (the ``features`` stage); this module starts from its cached
frames. For a batch of clips:

1. the compressor turns the 20-ms frames into one token per 160 ms (overlap channel held at zero);
2. the adapter maps them to the decoder's hidden size through a context block → prefix tokens z_t;
3. the confidence head pools z_t and emits (v', s) per scored quantity (readout B);
4. the decoder reads [z_1..z_P, instruction] and writes a description whose numbers are value slots,
   filled from the head (readout A).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from acousticlaim.model.adapter import Adapter
from acousticlaim.model.compressor import ConvCompressor, length_mask
from acousticlaim.model.decoder import DecoderSpec, slot_token_ids
from acousticlaim.model.descriptions import DEFAULT_INSTRUCTION, fill_slots
from acousticlaim.model.head import ConfidenceHead, Dispersion, heteroscedastic_loss
from acousticlaim.quantities import SCORED_KEYS


@dataclass(frozen=True)
class SystemSpec:
    """Sizes of the trained parts (the ``train.system`` group) plus the decoder spec."""

    encoder_dim: int
    compressor_channels: int = 128
    compressor_layers: int = 3  # 2**3 frames of 20 ms = one prefix token per 160 ms
    adapter_heads: int = 4
    instruction: str = DEFAULT_INSTRUCTION
    decoder: DecoderSpec = field(default_factory=DecoderSpec)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["decoder"]["lora_targets"] = list(self.decoder.lora_targets)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SystemSpec":
        d = dict(d)
        d["decoder"] = DecoderSpec.from_params(d.get("decoder", {}))
        return cls(**d)


@dataclass
class GeneratedText:
    """One emitted description: the slotted token text, the filled text, and its accounting."""

    slot_text: str
    text: str
    n_tokens: int
    truncated: bool
    stated: list[str]


class ReferenceSystem(nn.Module):
    def __init__(
        self, spec: SystemSpec, decoder: nn.Module, tokenizer, dispersion: Dispersion, new_token_ids: Sequence[int] = ()
    ):
        super().__init__()
        self.new_token_ids = [int(i) for i in new_token_ids]  # token rows added to a checkpoint's vocabulary
        self.spec = spec
        self.decoder = decoder
        self.tokenizer = tokenizer
        self.dispersion = dispersion
        hidden = decoder.get_input_embeddings().weight.shape[1]
        self.hidden_size = hidden
        self.compressor = ConvCompressor(spec.encoder_dim, spec.compressor_channels, spec.compressor_layers)
        self.adapter = Adapter(spec.compressor_channels, hidden, n_heads=spec.adapter_heads)
        self.head = ConfidenceHead(hidden, len(SCORED_KEYS))
        self.slot_ids = slot_token_ids(tokenizer)
        self.instruction_ids = tokenizer(spec.instruction, add_special_tokens=False)["input_ids"]
        if not self.instruction_ids:
            raise ValueError("the instruction tokenises to nothing")

    # -- the prefix -------------------------------------------------------------------------------
    @property
    def device(self) -> torch.device:
        return self.head.linear.weight.device

    def prefix(self, frames: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder frames (B, T, D) → prefix tokens z (B, P, H) and their validity mask (B, P)."""
        tokens, token_lengths = self.compressor(frames, lengths)
        mask = length_mask(token_lengths, tokens.shape[1])
        return self.adapter(tokens, mask), mask

    def _embed(self, ids: Sequence[int]) -> torch.Tensor:
        table = self.decoder.get_input_embeddings()
        return table(torch.as_tensor(list(ids), dtype=torch.long, device=self.device))

    # -- training ---------------------------------------------------------------------------------
    def losses(
        self,
        frames: torch.Tensor,
        lengths: torch.Tensor,
        targets_norm: torch.Tensor,
        description_ids: Sequence[Sequence[int]],
        beta: float,
        lm_rows: int | None = None,
    ) -> dict[str, torch.Tensor]:
        """Head loss, decoder LM loss and per-quantity head losses.

        The LM loss is the negative log-likelihood of each description's tokens (and its EOS) given the
        prefix and the instruction, summed over the description and averaged over the batch: the few
        tokens where a description states or declines carry their full weight, not 1/length of it.
        ``lm_rows`` limits the LM loss to the first clips of the batch (the head loss covers all).
        """
        z, mask = self.prefix(frames, lengths)
        v_norm, logvar = self.head(z, mask)
        head_loss, per_quantity = heteroscedastic_loss(v_norm, logvar, targets_norm, beta=beta)
        k = len(description_ids) if lm_rows is None else max(1, min(int(lm_rows), len(description_ids)))
        lm_loss = self._lm_loss(z[:k], mask[:k], description_ids[:k])
        return {"head": head_loss, "lm": lm_loss, "per_quantity": per_quantity}

    def _lm_loss(self, z: torch.Tensor, mask: torch.Tensor, description_ids: Sequence[Sequence[int]]) -> torch.Tensor:
        dtype = self.decoder.get_input_embeddings().weight.dtype
        instr = self._embed(self.instruction_ids)
        eos = self.tokenizer.eos_token_id
        rows, label_rows = [], []
        for zi, mi, desc in zip(z, mask, description_ids):
            target = list(desc) + [eos]
            emb = torch.cat([zi[mi].to(dtype), instr, self._embed(target)], dim=0)
            labels = torch.full((emb.shape[0],), -100, dtype=torch.long, device=self.device)
            labels[-len(target) :] = torch.as_tensor(target, device=self.device)
            rows.append(emb)
            label_rows.append(labels)
        width = max(r.shape[0] for r in rows)
        embeds = torch.zeros(len(rows), width, rows[0].shape[1], dtype=dtype, device=self.device)
        labels = torch.full((len(rows), width), -100, dtype=torch.long, device=self.device)
        attention = torch.zeros(len(rows), width, dtype=torch.long, device=self.device)
        for i, (r, lab) in enumerate(zip(rows, label_rows)):
            embeds[i, : r.shape[0]] = r
            labels[i, : r.shape[0]] = lab
            attention[i, : r.shape[0]] = 1
        logits = self.decoder(inputs_embeds=embeds, attention_mask=attention).logits[:, :-1].float()
        nll = nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1), ignore_index=-100, reduction="sum"
        )
        return nll / len(rows)  # summed over a description's tokens, averaged over descriptions

    # -- readouts ---------------------------------------------------------------------------------
    @torch.no_grad()
    def readout(self, frames: torch.Tensor, lengths: torch.Tensor) -> dict[str, Any]:
        """Readout B for a batch: canonical values (Σ of the per-token terms), s, terms, and the prefix."""
        z, mask = self.prefix(frames, lengths)
        _, logvar = self.head(z, mask)
        terms = self.head.decompose(z, mask, self.dispersion)
        values = np.stack([t.sum(axis=0) for t in terms])
        return {"value": values, "logvar": logvar.double().cpu().numpy(), "terms": terms, "z": z, "mask": mask}

    @torch.no_grad()
    def generate(
        self, z: torch.Tensor, mask: torch.Tensor, values: np.ndarray, max_new_tokens: int = 160
    ) -> list[GeneratedText]:
        """Greedy decoding from [z, instruction] (left-padded batch); slots filled from ``values`` (B, Q)."""
        dtype = self.decoder.get_input_embeddings().weight.dtype
        instr = self._embed(self.instruction_ids)
        rows = [torch.cat([zi[mi].to(dtype), instr], dim=0) for zi, mi in zip(z, mask)]
        width = max(r.shape[0] for r in rows)
        embeds = torch.zeros(len(rows), width, rows[0].shape[1], dtype=dtype, device=self.device)
        attention = torch.zeros(len(rows), width, dtype=torch.long, device=self.device)
        for i, r in enumerate(rows):
            embeds[i, width - r.shape[0] :] = r
            attention[i, width - r.shape[0] :] = 1
        eos, pad = self.tokenizer.eos_token_id, self.tokenizer.pad_token_id
        out = self.decoder.generate(
            inputs_embeds=embeds, attention_mask=attention, max_new_tokens=max_new_tokens,
            do_sample=False, eos_token_id=eos, pad_token_id=pad,
        )
        results = []
        for i, seq in enumerate(out.tolist()):
            ended = eos in seq
            body = seq[: seq.index(eos)] if ended else seq
            n_tokens = len(body) + (1 if ended else 0)
            slot_text = self.tokenizer.decode(body, skip_special_tokens=False).strip()
            stated = [self.slot_ids[t] for t in body if t in self.slot_ids]
            filled = fill_slots(slot_text, {k: values[i, j] for j, k in enumerate(SCORED_KEYS)})
            results.append(GeneratedText(slot_text, filled, n_tokens, not ended, stated))
        return results
