"""Generations per second of one real architecture at full size: Qwen2-Audio-7B-Instruct, random weights.

    python3 benchmarks/bench_panel_gpu.py [--batch 16] [--batches 3] [--max-new-tokens 160]

Needs a CUDA GPU (~20 GB). Builds ``Qwen2AudioForConditionalGeneration`` from its config at the
released size (Whisper-large-style audio encoder, 32 layers × 1280; Qwen-7B decoder, 32 layers ×
4096, vocabulary 156,032) with random weights directly in bf16 on the GPU — no checkpoint is read —
and drives it through the project's own adapter (:class:`Qwen2AudioAdapter`): the published chat
template, raw 10-s 16-kHz waveforms, greedy decoding, left-padded batches of 16. Stop tokens are
suppressed so every generation runs to the 160-token cap: the figure is the worst case, a full-length
answer each time (the released panel's answers stop earlier). One warm-up batch is not timed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import Qwen2AudioConfig, Qwen2AudioForConditionalGeneration  # noqa: E402

from acousticlaim.claims.prompts import RUNGS  # noqa: E402
from acousticlaim.panel.open_weight import Qwen2AudioAdapter  # noqa: E402
from acousticlaim.panel.protocol import GenerationRequest  # noqa: E402
from tests.panel_tiny_models import byte_tokenizer  # noqa: E402

QWEN2_7B_TEXT = dict(model_type="qwen2", hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                     num_attention_heads=32, num_key_value_heads=32, vocab_size=156032, max_position_embeddings=8192,
                     rope_theta=10000.0, rms_norm_eps=1e-5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=160)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--smoke", action="store_true",
                    help="a tiny model (1 layer, hidden 64) to check the script runs end to end; not the benchmark")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("bench_panel_gpu needs a CUDA GPU")
    on_gpu = args.device == "cuda"
    from transformers import Qwen2AudioProcessor, WhisperFeatureExtractor

    tok = byte_tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"],
                         eos="<|im_end|>", pad="<|endoftext|>")
    processor = Qwen2AudioProcessor(feature_extractor=WhisperFeatureExtractor(feature_size=128), tokenizer=tok)
    text = dict(QWEN2_7B_TEXT)
    audio: dict = {}
    if args.smoke:
        text.update(num_hidden_layers=1, hidden_size=64, intermediate_size=128, num_attention_heads=2,
                    num_key_value_heads=2, vocab_size=len(tok))
        audio = {"encoder_layers": 1, "d_model": 64, "encoder_attention_heads": 2, "encoder_ffn_dim": 128}
    config = Qwen2AudioConfig(text_config=text, audio_config=audio or None,
                              audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"))
    t0 = time.perf_counter()
    torch.manual_seed(0)
    torch.set_default_dtype(torch.bfloat16)
    with torch.device(args.device):
        model = Qwen2AudioForConditionalGeneration(config)
    torch.set_default_dtype(torch.float32)
    model = model.to(torch.bfloat16).eval()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"built {n_params / 1e9:.2f} B parameters (bf16, random) in {time.perf_counter() - t0:.1f} s")

    adapter = Qwen2AudioAdapter(model, processor, name="qwen2-audio-7b-random", max_new_tokens=args.max_new_tokens,
                                batch_size=args.batch)
    stops = adapter.stop_token_ids

    def no_stop(module, inputs, output):  # every answer runs to the cap
        output[:, -1, stops] = torch.finfo(output.dtype).min
        return output

    model.get_output_embeddings().register_forward_hook(no_stop)
    rng = np.random.default_rng(0)

    def batch(i: int) -> list[GenerationRequest]:
        return [GenerationRequest(f"clip{i}_{j}", rng.standard_normal(160_000) * 0.05, RUNGS[j % 5], 0)
                for j in range(args.batch)]

    adapter.generate(batch(-1))  # warm-up
    if on_gpu:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    n = n_tokens = 0
    for i in range(args.batches):
        results = adapter.generate(batch(i))
        n += len(results)
        n_tokens += sum(r.n_tokens for r in results)
        assert all(r.truncated for r in results)
    if on_gpu:
        torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    where = f"{torch.cuda.get_device_name()}, peak {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB" if on_gpu else "cpu"
    print(f"{n} generations × {args.max_new_tokens} tokens in {wall:.1f} s = {n / wall:.2f} generations/s, "
          f"{n_tokens / wall:.0f} new tokens/s (batch {args.batch}, bf16, {where})")


if __name__ == "__main__":
    main()
