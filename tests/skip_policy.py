"""A pytest plugin: the skipped tests' count and reasons at the end of every run, and under CI
(``ACOUSTICLAIM_CI=1``) a failed run when a test skipped for a reason CI can fix itself.

A skip CI can fix is a missing package or Debian data package: its reason carries :data:`CI_CAN_FIX`
followed by the command (``tests/speech_files.py`` words its skips that way). Data that are not in the
repository (the shared folder) and hardware (a GPU) are reasons CI cannot fix.
"""

from __future__ import annotations

import os
from collections import Counter

CI_CAN_FIX = "install it with:"
CI_ENV = "ACOUSTICLAIM_CI"

def skip_reason(report) -> str | None:
    if not report.skipped:
        return None
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def ci_can_fix(reason: str) -> bool:
    return CI_CAN_FIX in reason


class SkipReport:
    """One per session: the reasons of the skips it saw, counted."""

    def __init__(self) -> None:
        self.reasons: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report):
        reason = skip_reason(report)
        if reason is not None:
            self.reasons[reason] += 1

    def pytest_collectreport(self, report):
        reason = skip_reason(report)
        if reason is not None:
            self.reasons[reason] += 1

    def pytest_terminal_summary(self, terminalreporter):
        terminalreporter.section(f"{sum(self.reasons.values())} skipped test(s)")
        for reason, count in self.reasons.most_common():
            mark = " [CI can fix this]" if ci_can_fix(reason) else ""
            terminalreporter.write_line(f"{count:4d}  {reason}{mark}")
        fixable = self.fixable()
        if fixable and os.environ.get(CI_ENV) == "1":
            terminalreporter.write_line(f"{fixable} test(s) skipped for a reason CI can fix (install what they name)",
                                        red=True)

    def fixable(self) -> int:
        return sum(n for reason, n in self.reasons.items() if ci_can_fix(reason))

    def pytest_sessionfinish(self, session, exitstatus):
        if os.environ.get(CI_ENV) == "1" and self.fixable() and exitstatus == 0:
            session.exitstatus = 1


def pytest_configure(config):
    config.pluginmanager.register(SkipReport(), "acousticlaim-skip-report")
