# SPDX-License-Identifier: GPL-2.0-only
"""check() and the summary line of the Python tests in this directory."""
import sys

fails = 0


def check(cond, what):
    """Count and print a failed expectation; the test goes on."""
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def finish():
    print(f"{fails} failed")
    sys.exit(1 if fails else 0)
