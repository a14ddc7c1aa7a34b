"""What a test script reports: "ok  NAME" or "FAIL NAME  [DETAIL]" per
check, and a last line "SUITE: N passed, N failed" (tests/run.sh counts
the ok and FAIL lines and shows the last)."""
import sys


class Tally:
    def __init__(self, suite):
        self.suite, self.passed, self.failed = suite, 0, 0

    def check(self, name, cond, detail=""):
        self.passed += bool(cond)
        self.failed += not cond
        print(f"{'ok  ' if cond else 'FAIL'} {name}" + ("" if cond else f"  [{detail}]"))
        return bool(cond)

    def done(self):
        print(f"{self.suite}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)
