"""The skip report: count and reasons always; under CI a skip CI could fix (an install) fails the run."""

from __future__ import annotations

import pytest

from tests.skip_policy import CI_CAN_FIX, CI_ENV

INNER = f'''
import pytest

def test_needs_a_package():
    pytest.skip("pysptk's example file is not on this machine; {CI_CAN_FIX} pip install pysptk")

def test_needs_shared_data():
    pytest.skip("shared/data/release is not on this machine")

def test_runs():
    assert True
'''


@pytest.fixture
def inner(pytester):
    pytester.makepyfile(test_inner=INNER)
    return pytester


def test_report_counts_skips_with_their_reasons(inner, monkeypatch):
    monkeypatch.delenv(CI_ENV, raising=False)
    result = inner.runpytest_inprocess("-p", "tests.skip_policy")
    result.assert_outcomes(passed=1, skipped=2)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*2 skipped test(s)*", "*1  *pip install pysptk [[]CI can fix this[]]",
                                 "*1  shared/data/release is not on this machine"])


def test_ci_fails_on_a_skip_it_can_fix(inner, monkeypatch):
    monkeypatch.setenv(CI_ENV, "1")
    result = inner.runpytest_inprocess("-p", "tests.skip_policy")
    result.assert_outcomes(passed=1, skipped=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*1 test(s) skipped for a reason CI can fix*"])


def test_ci_passes_when_only_unfixable_reasons_skip(pytester, monkeypatch):
    monkeypatch.setenv(CI_ENV, "1")
    pytester.makepyfile(test_inner="import pytest\n\ndef test_gpu():\n    pytest.skip('no GPU on this machine')\n")
    result = pytester.runpytest_inprocess("-p", "tests.skip_policy")
    assert result.ret == 0
