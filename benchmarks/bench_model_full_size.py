"""Step time and peak memory of the full-size reference system on one GPU (random weights, bf16).

NOT RUN in the session that wrote it (no GPU was lent); it is prepared to run as one short job:

    python3 benchmarks/bench_model_full_size.py --steps 5 --batch 4

It builds, with random weights and no download:

* a WavLM-base-plus-sized encoder (``WavLMConfig()`` defaults: 7-layer conv stack of 512 channels,
  12 transformer layers of 768, read at layer 7), frozen, in bf16;
* a Qwen3-8B-sized decoder (hidden 4096, 36 layers, 32 query / 8 key-value heads of 128, MLP 12288,
  vocabulary 151,936) in bf16, frozen under the LoRA of rank 16 the project uses
  (:func:`acousticlaim.model.decoder.wrap_lora`);
* the project's compressor, adapter and confidence head (:class:`acousticlaim.model.system.ReferenceSystem`)
  on top, with the value slots' embedding rows trainable;

then times ``--steps`` training steps (encoder forward on raw 10-s waveforms, head loss + LM loss on a
~100-token description, backward, AdamW) after one warm-up step, and prints one JSON line: step time
(median, s), clips per second, peak GPU memory (GiB), trainable and total parameters.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402

QWEN3_8B = dict(hidden_size=4096, intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32,
                num_key_value_heads=8, head_dim=128, vocab_size=151936, max_position_embeddings=40960,
                tie_word_embeddings=False, rms_norm_eps=1e-6)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=10.0, help="clip length")
    ap.add_argument("--cpu-dry-run", action="store_true",
                    help="check the script's code path on the CPU at a tiny size (no figure it prints means anything)")
    args = ap.parse_args()
    if not args.cpu_dry_run and not torch.cuda.is_available():
        raise SystemExit("this benchmark needs a CUDA GPU (it builds an 8-billion-parameter decoder)")
    from transformers import Qwen3Config, Qwen3ForCausalLM, WavLMConfig, WavLMModel

    from acousticlaim.model.decoder import DecoderSpec, build_tokenizer, slot_token_ids, wrap_lora
    from acousticlaim.model.descriptions import describe, tokenizer_corpus
    from acousticlaim.model.head import Dispersion
    from acousticlaim.model.system import ReferenceSystem, SystemSpec
    from acousticlaim.quantities import SCORED_KEYS

    dev, dtype = (torch.device("cpu"), torch.float32) if args.cpu_dry_run else (torch.device("cuda"), torch.bfloat16)
    sizes = dict(QWEN3_8B)
    wavlm = {}
    if args.cpu_dry_run:
        sizes.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, head_dim=16, vocab_size=2048)
        wavlm = dict(hidden_size=64, num_hidden_layers=8, num_attention_heads=4, intermediate_size=128,
                     conv_dim=[32] * 7, num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    torch.manual_seed(0)
    t0 = time.perf_counter()
    torch.set_default_dtype(dtype)
    with dev:
        encoder = WavLMModel(WavLMConfig(**wavlm)).eval().requires_grad_(False)
        tokenizer = build_tokenizer(tokenizer_corpus(), vocab_size=1000)  # stands in for Qwen3's (ids fit the vocab)
        config = Qwen3Config(**sizes, pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
        base = Qwen3ForCausalLM(config)
    torch.set_default_dtype(torch.float32)
    build_s = time.perf_counter() - t0
    spec = SystemSpec(encoder_dim=encoder.config.hidden_size, compressor_channels=64 if args.cpu_dry_run else 1024,
                      adapter_heads=4 if args.cpu_dry_run else 32,
                      decoder=DecoderSpec(checkpoint="random-qwen3-8b", dtype="bfloat16"))
    decoder = wrap_lora(base, spec.decoder, sorted(slot_token_ids(tokenizer)))
    disp = Dispersion(tuple(SCORED_KEYS), np.zeros(len(SCORED_KEYS)), np.ones(len(SCORED_KEYS)))
    system = ReferenceSystem(spec, decoder, tokenizer, disp, sorted(slot_token_ids(tokenizer))).to(dev)
    for m in (system.compressor, system.adapter, system.head):
        m.to(dtype)
    params = [p for p in system.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    n_samples = int(args.seconds * 16000)
    wave = 0.05 * torch.randn(args.batch, n_samples, device=dev, dtype=dtype)
    target = torch.randn(args.batch, len(SCORED_KEYS), device=dev)
    desc = [tokenizer(describe(0.0), add_special_tokens=False)["input_ids"]] * args.batch

    def step() -> float:
        sync()
        t = time.perf_counter()
        with torch.no_grad():
            frames = encoder(wave, output_hidden_states=True).hidden_states[7]
        lengths = torch.full((args.batch,), frames.shape[1], device=dev)
        out = system.losses(frames, lengths, target.to(dtype), desc, beta=0.5)
        loss = out["head"].float() + 0.2 * out["lm"].float()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sync()
        return time.perf_counter() - t

    step()  # warm-up
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    times = [step() for _ in range(args.steps)]
    print(json.dumps({
        "device": torch.cuda.get_device_name() if dev.type == "cuda" else "cpu (dry run, tiny sizes)",
        "batch": args.batch, "clip_s": args.seconds, "steps": args.steps,
        "step_s_median": statistics.median(times), "clips_per_s": args.batch / statistics.median(times),
        "peak_gib": torch.cuda.max_memory_allocated() / 2**30 if dev.type == "cuda" else None,
        "trainable_params": sum(p.numel() for p in params),
        "decoder_params": sum(p.numel() for p in base.parameters()),
        "build_s": build_s,
    }))


if __name__ == "__main__":
    main()
