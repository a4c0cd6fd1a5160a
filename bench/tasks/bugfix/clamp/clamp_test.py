import pytest

from clamp import clamp


def test_inside():
    assert clamp(5, 0, 10) == 5


def test_below():
    assert clamp(-3, 0, 10) == 0


def test_above():
    assert clamp(42, 0, 10) == 10


def test_bad_bounds():
    with pytest.raises(ValueError):
        clamp(1, 5, 2)
