from total import order_total


def test_one_line():
    assert order_total([{"price": 3, "quantity": 2}]) == 6


def test_two_lines():
    lines = [{"price": 3, "quantity": 2}, {"price": 10, "quantity": 1}]
    assert order_total(lines) == 16


def test_empty():
    assert order_total([]) == 0
