from calc import add, multiply


def test_add():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-4, 1) == -3


def test_multiply():
    assert multiply(3, 4) == 12
