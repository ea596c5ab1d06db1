"""The full-size code path, exercised at a tiny size: a Qwen3 checkpoint folder with its own tokenizer.

The test saves a small random Qwen3ForCausalLM and a tokenizer (one without the value slots) to a folder,
then builds the system from that folder as it would from Qwen/Qwen3-8B: the slots are added to the
tokenizer, only their embedding rows and the LoRA train, and a saved system reloads from the folder.
"""

import numpy as np
import pandas as pd
import pytest
import torch

from acousticlaim.model.batching import label_matrix, pad_frames
from acousticlaim.model.checkpoint import load_system, save_system
from acousticlaim.model.decoder import DecoderSpec, slot_token_ids
from acousticlaim.model.descriptions import describe
from acousticlaim.model.head import Dispersion
from acousticlaim.model.predict import predict_clips
from acousticlaim.model.system import SystemSpec
from acousticlaim.model.train import build_system
from tests.model_fixtures import FEATURE_DIM, constructed_table


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    folder = tmp_path_factory.mktemp("qwen3-checkpoint")
    texts = ["Describe the acoustics of this recording with numbers.", "The SNR is 12 dB and the HNR is 9 dB."] * 4
    # a checkpoint's own tokenizer, which knows nothing of the value slots
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    plain = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>")
    plain.save_pretrained(str(folder))
    torch.manual_seed(0)
    config = Qwen3Config(vocab_size=len(plain), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=16, eos_token_id=plain.eos_token_id,
                         tie_word_embeddings=False)
    Qwen3ForCausalLM(config).save_pretrained(str(folder))
    return folder


def _spec(folder) -> SystemSpec:
    return SystemSpec(encoder_dim=FEATURE_DIM, compressor_channels=16, adapter_heads=2,
                      decoder=DecoderSpec(checkpoint=str(folder), dtype="float32"))


def test_checkpoint_decoder_gets_slots_and_trains_only_their_rows_and_the_lora(checkpoint_dir, tmp_path):
    from transformers import Qwen3ForCausalLM

    table = constructed_table(8, seed=5)
    disp = Dispersion.from_labels(label_matrix(table))
    system, pretrain = build_system(_spec(checkpoint_dir), disp, seed=0, overlaps=table["overlap"].to_numpy())
    assert pretrain == []  # a checkpoint is never trained text-only
    slots = sorted(slot_token_ids(system.tokenizer))
    assert system.new_token_ids == slots and len(slots) == 10
    original = Qwen3ForCausalLM.from_pretrained(str(checkpoint_dir)).state_dict()
    emb_before = system.decoder.get_input_embeddings()(torch.tensor(slots)).detach().clone()
    opt = torch.optim.AdamW([p for p in system.parameters() if p.requires_grad], lr=1e-2)
    frames, lengths = pad_frames(list(table["features"]))
    ids = [system.tokenizer(describe(float(o)), add_special_tokens=False)["input_ids"] for o in table["overlap"]]
    target = torch.as_tensor(disp.normalise(label_matrix(table)), dtype=torch.float32)
    for _ in range(2):
        out = system.losses(frames, lengths, target, ids, beta=0.5)
        opt.zero_grad()
        (out["head"] + out["lm"]).backward()
        opt.step()
    emb_after = system.decoder.get_input_embeddings()(torch.tensor(slots)).detach()
    assert not torch.allclose(emb_before, emb_after)  # the slot rows train
    base = system.decoder.get_base_model()
    for name, param in base.named_parameters():
        clean = name.replace(".base_layer.", ".")
        if clean in original and "embed_tokens" not in clean and "lm_head" not in clean:
            assert torch.equal(param.detach(), original[clean]), name  # the checkpoint's weights stay
    n_old = original["model.embed_tokens.weight"].shape[0]
    weight = base.model.embed_tokens.base_layer.weight if hasattr(base.model.embed_tokens, "base_layer") else base.model.embed_tokens.weight
    assert torch.equal(weight[:n_old].detach(), original["model.embed_tokens.weight"])

    save_system(system, tmp_path / "ckpt", seed=0)
    assert not (tmp_path / "ckpt" / "base_decoder.safetensors").exists()  # re-read from the checkpoint
    loaded, _ = load_system(tmp_path / "ckpt")
    a = predict_clips(system.eval(), table, generate=[True] * 2 + [False] * 6, max_new_tokens=12)
    b = predict_clips(loaded, table, generate=[True] * 2 + [False] * 6, max_new_tokens=12)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    assert [g["slot_text"] for g in a.generations] == [g["slot_text"] for g in b.generations]
    assert all(g["n_tokens"] <= 12 for g in a.generations)
    assert all(g["n_tokens"] == 12 for g in a.generations if g["truncated"])
