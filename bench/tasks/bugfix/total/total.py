"""Sums the amounts of an order's lines."""


def order_total(lines):
    total = 0
    for i in range(1, len(lines)):
        total += lines[i]["price"] * lines[i]["quantity"]
    return total
