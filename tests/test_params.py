"""Reading params.yaml sections: missing files and groups, and keys a settings class does not have."""

from dataclasses import dataclass

import pytest

from acousticlaim.params import UnknownParameters, reject_unknown_keys, stage_params


@dataclass
class _Settings:
    coverage: float = 0.75
    splits: int = 5


def test_unknown_keys_are_named_with_the_known_ones():
    reject_unknown_keys("calib", {"coverage": 0.8}, _Settings)  # known keys pass
    with pytest.raises(UnknownParameters) as info:
        reject_unknown_keys("calib", {"coverage": 0.8, "coverge": 0.7, "split": 3}, _Settings)
    message = str(info.value)
    assert message.startswith("calib: unknown parameter(s) coverge, split")
    assert "known: coverage, splits" in message
    # callers may catch it as either of the errors a bad mapping key or value raises
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)


def test_missing_group_and_file(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("calib:\n  coverage: 0.8\n")
    assert stage_params("calib", path) == {"coverage": 0.8}
    with pytest.raises(KeyError, match="no 'train:' group; groups present: calib"):
        stage_params("train", path)
    with pytest.raises(FileNotFoundError, match="parameter file not found"):
        stage_params("calib", tmp_path / "nope.yaml")
