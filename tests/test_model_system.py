"""The tiny reference system trained on a constructed table: it learns, declines, decomposes, round-trips."""

import numpy as np
import pandas as pd
import pytest
import torch

from acousticlaim.model.batching import label_matrix, pad_frames
from acousticlaim.model.checkpoint import base_decoder_state, load_system, save_system
from acousticlaim.model.descriptions import fill_slots, format_value
from acousticlaim.model.evaluate import decline_rates, nmae
from acousticlaim.model.head import Dispersion
from acousticlaim.model.predict import predict_clips
from acousticlaim.model.train import build_system, train_reference_system
from acousticlaim.quantities import SCORED_KEYS, VOICE_KEYS
from tests.model_fixtures import constructed_table, tiny_system_spec, tiny_train_spec


@pytest.fixture(scope="module")
def trained():
    torch.set_num_threads(1)
    train = constructed_table(96, seed=0)
    test = constructed_table(48, seed=1)
    result = train_reference_system(train, tiny_system_spec(), tiny_train_spec(), seed=0)
    readouts = predict_clips(result.system, test, generate=np.ones(len(test), bool))
    return result, train, test, readouts


def test_history_logs_every_step_and_epoch_times(trained):
    result, train, _, _ = trained
    assert len(result.epoch_seconds) == 10
    assert len(result.history) == 10 * 6  # 96 clips / 16
    assert {"loss", "head_loss", "lm_loss", "head_snr"} <= set(result.history.columns)
    first, last = result.history.head(6), result.history.tail(6)
    assert last["head_loss"].mean() < first["head_loss"].mean()


def test_beats_the_constant_predictor_on_at_least_six_quantities(trained):
    _, _, test, readouts = trained
    wide = readouts.predictions.pivot(index="clip_id", columns="quantity", values="value").loc[test["clip_id"]]
    scores = {k: nmae(wide[k].to_numpy(), test[k].to_numpy()) for k in SCORED_KEYS}
    assert sum(v < 1 for v in scores.values()) >= 6, scores


def test_decoder_declines_voice_on_high_overlap_and_states_it_otherwise(trained):
    _, _, test, readouts = trained
    overlap = dict(zip(test["clip_id"], test["overlap"]))
    kind = dict(zip(test["clip_id"], test["kind"]))
    rates = decline_rates(readouts.generations, overlap, kind)
    assert rates["n_high_overlap_mixtures"] > 15 and rates["n_twins"] > 15
    assert rates["decline_rate_high_overlap_mixtures"] >= 0.9, rates
    assert rates["state_rate_twins"] >= 0.9, rates
    assert rates["truncated_rate"] == 0.0
    for g in readouts.generations:  # the non-voice quantities are always stated
        assert {k for k in SCORED_KEYS if k not in VOICE_KEYS} <= set(g["stated"])


def test_stated_numbers_are_the_heads_values_and_sums_of_token_terms(trained):
    _, _, test, readouts = trained
    values = readouts.predictions.set_index(["clip_id", "quantity"])["value"]
    sums = readouts.decomposition.groupby(["clip_id", "quantity"])["term"].sum()
    assert np.allclose(sums.loc[values.index].to_numpy(), values.to_numpy(), rtol=1e-12, atol=1e-9)
    tokens = readouts.decomposition.groupby("clip_id")["token"].nunique()
    lengths = {cid: -(-len(f) // 8) for cid, f in zip(test["clip_id"], test["features"])}
    assert all(tokens[c] == lengths[c] for c in tokens.index)  # one term per prefix token
    for g in readouts.generations:
        clip_values = {k: values[(g["clip_id"], k)] for k in SCORED_KEYS}
        assert g["text"] == fill_slots(g["slot_text"], clip_values)
        assert "<|" not in g["text"]


def test_checkpoint_round_trip_gives_identical_predictions(trained, tmp_path):
    result, _, test, readouts = trained
    save_system(result.system, tmp_path / "ckpt", seed=0)
    loaded, meta = load_system(tmp_path / "ckpt")
    assert meta["seed"] == 0
    again = predict_clips(loaded, test, generate=np.ones(len(test), bool))
    pd.testing.assert_frame_equal(again.predictions, readouts.predictions)
    pd.testing.assert_frame_equal(again.decomposition, readouts.decomposition)
    assert [g["text"] for g in again.generations] == [g["text"] for g in readouts.generations]


def test_a_clip_reads_out_the_same_alone_and_in_a_batch(trained):
    result, _, test, readouts = trained
    one = test.iloc[[5]].reset_index(drop=True)
    alone = predict_clips(result.system, one, generate=[True])
    batch_values = readouts.predictions[readouts.predictions["clip_id"] == one["clip_id"][0]]["value"].to_numpy()
    assert np.allclose(alone.predictions["value"].to_numpy(), batch_values, rtol=1e-5, atol=1e-5)
    in_batch = next(g for g in readouts.generations if g["clip_id"] == one["clip_id"][0])
    assert alone.generations[0]["slot_text"] == in_batch["slot_text"]


def test_lora_training_leaves_the_base_decoder_untouched():
    torch.manual_seed(0)
    table = constructed_table(16, seed=2)
    labels = label_matrix(table)
    disp = Dispersion.from_labels(labels)
    system, _ = build_system(tiny_system_spec(pretrain_steps=5), disp, seed=0, overlaps=table["overlap"].to_numpy())
    base_before = {k: v.clone() for k, v in base_decoder_state(system).items()}
    lora_before = {n: p.clone() for n, p in system.named_parameters() if "lora_" in n}
    assert lora_before and all(p.requires_grad for n, p in system.named_parameters() if "lora_" in n)
    assert not any(p.requires_grad for n, p in system.decoder.named_parameters() if "lora_" not in n)
    opt = torch.optim.AdamW([p for p in system.parameters() if p.requires_grad], lr=1e-2)
    frames, lengths = pad_frames(list(table["features"]))
    target = torch.as_tensor(disp.normalise(labels), dtype=torch.float32)
    ids = [system.tokenizer("The SNR is", add_special_tokens=False)["input_ids"]] * len(table)
    for _ in range(3):
        out = system.losses(frames, lengths, target, ids, beta=0.5)
        opt.zero_grad()
        (out["head"] + out["lm"]).backward()
        opt.step()
    base_after = base_decoder_state(system)
    assert base_before.keys() == base_after.keys()
    assert all(torch.equal(base_before[k], base_after[k]) for k in base_before)
    assert any(not torch.equal(lora_before[n], p) for n, p in system.named_parameters() if "lora_" in n)


def test_training_table_errors_name_the_problem():
    table = constructed_table(4, seed=3).drop(columns=["overlap"])
    with pytest.raises(ValueError, match="overlap"):
        train_reference_system(table, tiny_system_spec(), tiny_train_spec(1), seed=0)
    table = constructed_table(4, seed=3)
    table["features"] = [f if i != 1 else np.full((5, 12), np.nan, dtype=np.float32) for i, f in enumerate(table["features"])]
    with pytest.raises(ValueError, match="clip3_0001: features hold NaN"):
        train_reference_system(table, tiny_system_spec(), tiny_train_spec(1), seed=0)


def test_readout_a_parses_to_the_heads_values(trained):
    from acousticlaim.claims import parser
    _, _, _, readouts = trained
    values = readouts.predictions.set_index(["clip_id", "quantity"])["value"]
    for g in readouts.generations:
        claims = {c.quantity: c.value for c in parser.parse(g["text"])}
        assert set(claims) & set(SCORED_KEYS) == set(g["stated"]), g["text"]
        for key in g["stated"]:
            expected = float(format_value(key, values[(g["clip_id"], key)]))
            assert claims[key] == pytest.approx(expected, abs=1e-9), (key, g["text"])
