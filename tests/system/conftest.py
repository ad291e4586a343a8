"""Shared fixtures for the QEMU system tests (images are built by `make test-system`)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu import Guest  # noqa: E402


@pytest.fixture
def boot():
    """boot(**kw) starts a Guest; every guest is killed when the test ends."""
    guests = []

    def start(**kw):
        g = Guest(**kw)
        guests.append(g)
        return g

    yield start
    for g in guests:
        g.close()


@pytest.fixture
def nic():
    """The NIC a lab boots with: igb unless a test is parametrized over netlab.BOTH_NICS."""
    return "igb"
