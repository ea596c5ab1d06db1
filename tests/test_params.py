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


# --- every group through one loader: defaults once, bad values rejected before any stage work --------------

import copy  # noqa: E402
import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

import yaml  # noqa: E402

from acousticlaim.params import GROUPS, InvalidParameter, check_params, load_group, param, settings_from  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_the_projects_params_yaml_reads_in_every_group():
    settings = check_params(ROOT / "params.yaml")
    assert set(settings) == set(GROUPS)
    assert settings["calib"].coverage == 0.75 and settings["scores"].fieller_variance == 1.06
    assert settings["executor"].workers is None  # one process per core by default
    assert settings["generations"].sampling.clips_per_seed == 120
    assert settings["train"].optim.epochs == 30 and settings["features"].encoder.kind == "logmel"


def test_defaults_live_in_the_settings_classes_once():
    from acousticlaim.scoring.config import ScoringConfig
    from acousticlaim.scoring.stats import FIELLER_VARIANCE
    from acousticlaim.selective.calibration import CalibrationConfig
    from acousticlaim.selective.withholding import WithholdingConfig

    assert WithholdingConfig().coverage == CalibrationConfig().coverage == 0.75
    assert ScoringConfig().fieller_variance == FIELLER_VARIANCE == 1.06
    # an empty group is every default
    assert load_group_from({}, "calib") == WithholdingConfig()


def load_group_from(group: dict, name: str):
    from acousticlaim.params import settings_class

    return settings_from(settings_class(name), group, name)


@dataclass(frozen=True)
class _Typed:
    count: int = param(5, ge=2)
    share: float = param(0.5, gt=0, le=1)
    flag: bool = False
    pair: tuple[float, float] = (0.0, 1.0)
    maybe: int | None = param(None, ge=1)
    rule: str = param("first", choices=("first", "mean"))


@pytest.mark.parametrize("key, value, expected", [
    ("count", 2.5, "expected an integer >= 2"),
    ("count", True, "expected an integer >= 2"),
    ("count", 1, "expected an integer >= 2"),
    ("share", True, "expected a number > 0 and <= 1"),
    ("share", 0, "expected a number > 0 and <= 1"),
    ("share", float("nan"), "expected a number > 0 and <= 1"),
    ("flag", 1, "expected true or false"),
    ("pair", [1.0], "expected a list of 2: a number, a number"),
    ("maybe", 0, "expected null or an integer >= 1"),
    ("rule", "median", "expected one of: first, mean"),
])
def test_wrong_types_and_ranges_name_the_key_and_what_it_allows(key, value, expected):
    with pytest.raises(InvalidParameter) as info:
        settings_from(_Typed, {key: value}, "group")
    assert str(info.value).startswith(f"group.{key}: {value!r} is not allowed; {expected}")


def test_values_are_read_as_their_types():
    s = settings_from(_Typed, {"count": 3, "share": 1, "pair": [1, 2], "maybe": None}, "group")
    assert s == _Typed(count=3, share=1.0, pair=(1.0, 2.0), maybe=None)
    assert isinstance(s.share, float) and isinstance(s.pair, tuple)


def _stage(name: str):
    spec = importlib.util.spec_from_file_location(f"stage_{name}", ROOT / "stages" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


# (stage, the group edit, the message): each stage is pointed at inputs that do not exist, so the parameter
# error can only come first: no stage work has started when it is raised.
BAD = [
    ("calibrate", ("calib", "folds", 0), "calib.folds: 0 is not allowed; expected an integer >= 2"),
    ("calibrate", ("calib", "random_draws", 0), "calib.random_draws: 0 is not allowed; expected an integer >= 1"),
    ("calibrate", ("calib", "splits", 2.5), "calib.splits: 2.5 is not allowed; expected an integer >= 1"),
    ("calibrate", ("calib", "coverage", True), "calib.coverage: True is not allowed; expected a number > 0 and <= 1"),
    ("claims", ("claims", "thread", 2), "claims: unknown parameter(s) thread"),
    ("generations", ("generations.sampling", "clips_per_seeds", 5),
     "generations.sampling: unknown parameter(s) clips_per_seeds"),
    ("corpus", ("corpus", "n_trian", 5), "corpus: unknown parameter(s) n_trian"),
    ("corpus", ("executor", "workers", 0), "executor.workers: 0 is not allowed; expected null or an integer >= 1"),
    ("scores", ("scores", "pool", "median"), "scores.pool: 'median' is not allowed; expected one of: first, mean"),
    ("decomposition", ("decomposition", "ramp_limit", 1.5), "decomposition.ramp_limit: 1.5 is not allowed"),
    ("train", ("train.optim", "epochs", 0), "train.optim.epochs: 0 is not allowed; expected an integer >= 1"),
    ("references", ("references.vad", "threshold", 2), "references.vad.threshold: 2 is not allowed"),
]


@pytest.mark.parametrize("stage, edit, message", BAD, ids=[f"{g}.{k}={v!r}" for _, (g, k, v), _ in BAD])
def test_bad_values_stop_the_stage_before_any_work(stage, edit, message, tmp_path):
    params = copy.deepcopy(yaml.safe_load((ROOT / "params.yaml").read_text()))
    path, key, value = edit
    node = params
    for part in path.split("."):
        node = node[part]
    node[key] = value
    params_file = tmp_path / "params.yaml"
    params_file.write_text(yaml.safe_dump(params))
    missing = str(tmp_path / "absent")
    argv = {
        "calibrate": ["--predictions", missing, "--references", missing, "--manifest", missing],
        "claims": ["--generations", missing, "--out", missing, "--metrics", missing + ".json"],
        "generations": ["--system", "estimator", "--corpus", missing, "--out", missing],
        "corpus": ["--out", missing],
        "scores": ["--references", missing, "--claims", missing],
        "decomposition": ["--decomposition", missing, "--manifest", missing],
        "train": ["--seed", "0", "--manifest", missing, "--out", missing, "--plots", missing, "--metrics", missing],
        "references": ["--corpus", missing, "--out", missing],
    }[stage]
    with pytest.raises(ValueError) as info:
        _stage(stage)(argv + ["--params", str(params_file)])
    assert message in str(info.value)
    assert not Path(missing).exists()  # nothing was written


def test_params_yaml_is_written_as_dvc_writes_it_back():
    """``dvc exp run -S`` rewrites params.yaml with ruamel's round-trip dumper; in block style the file comes
    back line for line, so a change touches only its own line and no comment is stranded."""
    import io

    from dvc.utils.serialize._yaml import _get_yaml
    from ruamel.yaml import YAML

    text = (ROOT / "params.yaml").read_text()
    data = YAML().load(text)
    out = io.StringIO()
    _get_yaml().dump(data, out)
    assert out.getvalue() == text
    data["calib"]["coverage"] = 0.8
    out = io.StringIO()
    _get_yaml().dump(data, out)
    changed = [(a, b) for a, b in zip(text.splitlines(), out.getvalue().splitlines()) if a != b]
    assert changed == [("  coverage: 0.75       # share of the calibration half's slots stated (s_q <= tau_q)",
                        "  coverage: 0.8        # share of the calibration half's slots stated (s_q <= tau_q)")]
