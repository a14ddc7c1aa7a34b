"""pytest's view of the test suites (tests/cli, tests/ref, python/tests).

    python3 -m pytest -m macinfo                 one suite (its marker)
    python3 -m pytest -k symbolize               tests by name
    python3 -m pytest --build build-asan tests/ref/check_macinfo.py
    python3 -m pytest --libs -m size             with NVIDIA's libraries

A suite is a marker (pyproject.toml lists them; tests/run.sh runs one
suite per marker and counts passed, failed and skipped from pytest's last
line).  Tests compare with reference tools and with bytes; a test that
makes many comparisons takes the `check` fixture, which records each one
and fails the test at its end with every comparison that failed, so one
run reports them all.
"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tests", "common"))


def pytest_addoption(parser):
    g = parser.getgroup("cudwarf")
    g.addoption("--build", default=os.environ.get("CUDWARF_BUILD", "build"),
                help="the build directory whose cudwarf and test tools to run (default: build)")
    g.addoption("--libs", action="store_true", help="also read NVIDIA's libraries (/usr/local/cuda/lib64)")
    g.addoption("--quick", action="store_true", help="a sample of the big inputs only")


def pytest_configure(config):
    # tests/common/suite_env.py reads these when a test module imports it
    build = config.getoption("--build")
    os.environ["CUDWARF_BUILD"] = os.path.abspath(os.path.join(ROOT, build) if not os.path.isabs(build) else build)
    os.environ["CUDWARF_TEST_LIBS"] = "1" if config.getoption("--libs") else ""
    os.environ["CUDWARF_TEST_QUICK"] = "1" if config.getoption("--quick") else ""
    os.environ.setdefault("CUDWARF", os.path.join(os.environ["CUDWARF_BUILD"], "cudwarf"))


class Checks:
    """Soft assertions: check(name, cond, detail) records one comparison
    and returns cond; the test fails at its end if any was false."""

    def __init__(self):
        self.count = 0
        self.failures = []

    def __call__(self, name, cond, detail=""):
        self.count += 1
        if not cond:
            self.failures.append(f"{name}" + (f"  [{detail}]" if detail != "" else ""))
        return bool(cond)


@pytest.fixture
def check():
    return Checks()


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    outcome = yield
    c = pyfuncitem.funcargs.get("check")
    if isinstance(c, Checks) and c.failures and outcome.excinfo is None:
        shown = c.failures[:30]
        more = len(c.failures) - len(shown)
        pytest.fail(f"{len(c.failures)} of {c.count} checks failed:\n  " + "\n  ".join(shown) +
                    (f"\n  ... and {more} more" if more else ""), pytrace=False)
